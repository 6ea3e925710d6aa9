/** `tools.approval` of config.yaml: which script tools ask before their first call in a thread. */
export type ScriptApprovalPolicy = "untrusted" | "always" | "never";

/**
 * Whether a script tool asks before it runs: `per-thread` (its first call in each thread asks:
 * policy `always`, or `untrusted` and the tool is untrusted), `approved` (it would ask, but an
 * administrator approved the skill's or plugin's scripts for every thread: `scripts_approved`),
 * `not-required` (it never asks).
 */
export type ScriptApproval = "per-thread" | "approved" | "not-required";

export function scriptApproval(policy: ScriptApprovalPolicy, tool: { readonly trusted: boolean; readonly scriptsApproved: boolean }): ScriptApproval {
  const asks = policy === "always" || (policy === "untrusted" && !tool.trusted);
  if (!asks) return "not-required";
  return tool.scriptsApproved ? "approved" : "per-thread";
}
