import type { HookCommandResult, HookEventName, HookVerdict } from "./hook-types.js";

/** Most characters of context one hook may add for the model; the rest is cut with a note. */
export const maxHookContextCharacters = 10_000;

/** Events where exit code 2 blocks (SessionStart cannot be blocked: there it is a non-blocking error). */
const blockingEvents: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"]);
/** Events whose plain stdout (exit 0, not JSON) is context for the model. */
const stdoutContextEvents: ReadonlySet<HookEventName> = new Set(["SessionStart", "UserPromptSubmit"]);

/**
 * Reads one hook's result by Claude Code's rules for `event`:
 * - it could not run, or was stopped: `error`, or `timeout` (non-blocking: the run goes on);
 * - exit 2: `block`, stderr the reason (SessionStart: a non-blocking error);
 * - another non-zero exit: `error` (non-blocking), stderr the reason;
 * - exit 0: stdout that is a JSON object is the JSON output (`continue: false` → `stop` with
 *   `stopReason`; `decision: "block"` with `reason`; `systemMessage`; `suppressOutput`;
 *   `hookSpecificOutput.additionalContext`; for PreToolUse `permissionDecision` allow | deny | ask
 *   with `permissionDecisionReason`, `updatedInput`, and the older `decision: approve | block`);
 *   other stdout is context for SessionStart and UserPromptSubmit, and ignored elsewhere.
 */
export function interpretHookResult(event: HookEventName, result: HookCommandResult): HookVerdict {
  if (result.timedOut) return { outcome: "timeout", reason: result.error?.message ?? "the hook timed out and was stopped" };
  if (result.error) return { outcome: "error", reason: `${result.error.code}: ${result.error.message}` };
  const stderr = result.stderr.trim();
  if (result.exitCode === 2) {
    if (!blockingEvents.has(event)) return { outcome: "error", reason: stderr || "exit code 2", note: `exit code 2 cannot block ${event}` };
    return { outcome: "block", reason: stderr || `a ${event} hook blocked this (exit code 2, no message)` };
  }
  if (result.exitCode !== 0) return { outcome: "error", reason: stderr || `exit code ${result.exitCode ?? "none"}` };
  const stdout = result.stdout.trim();
  const output = stdout.startsWith("{") ? jsonObject(stdout) : undefined;
  if (output) return readJsonOutput(event, output);
  if (stdout !== "" && stdoutContextEvents.has(event)) return { outcome: "ok", ...cappedContext(stdout) };
  return { outcome: "ok" };
}

function readJsonOutput(event: HookEventName, output: Record<string, unknown>): HookVerdict {
  const notes: string[] = [];
  let specific = isObject(output.hookSpecificOutput) ? output.hookSpecificOutput : undefined;
  if (specific && typeof specific.hookEventName === "string" && specific.hookEventName !== event) {
    notes.push(`hookSpecificOutput is for ${specific.hookEventName}, not ${event}: ignored`);
    specific = undefined;
  }
  const common = {
    ...(typeof output.systemMessage === "string" ? { systemMessage: output.systemMessage } : {}),
    ...(output.suppressOutput === true ? { suppressOutput: true } : {}),
  };
  const context = typeof specific?.additionalContext === "string" && specific.additionalContext.trim() !== "" ? cappedContext(specific.additionalContext.trim()) : {};
  if (context.note) notes.push(context.note);
  const reason = typeof output.reason === "string" ? output.reason : undefined;
  let verdict: HookVerdict = { outcome: "ok", ...common, ...(context.context ? { context: context.context } : {}) };
  if (event === "PreToolUse") {
    const decision = permissionDecision(specific?.permissionDecision) ?? legacyDecision(output.decision);
    const decisionReason = typeof specific?.permissionDecisionReason === "string" ? specific.permissionDecisionReason : reason;
    const updatedInput = isObject(specific?.updatedInput) ? specific.updatedInput : undefined;
    verdict = {
      ...verdict,
      ...(decision ? { decision } : {}),
      ...(decisionReason !== undefined && decision ? { reason: decisionReason } : {}),
      ...(updatedInput ? { updatedInput } : {}),
    };
    if (decision === "deny") verdict = { ...verdict, outcome: "block", reason: decisionReason || "a PreToolUse hook denied this call" };
  } else if (output.decision === "block" && blockingEvents.has(event)) {
    verdict = { ...verdict, outcome: "block", reason: reason || `a ${event} hook blocked this` };
  }
  if (output.continue === false) {
    verdict = { ...verdict, outcome: "stop", ...(typeof output.stopReason === "string" ? { stopReason: output.stopReason } : {}) };
  }
  return notes.length > 0 ? { ...verdict, note: notes.join("; ") } : verdict;
}

function permissionDecision(value: unknown): HookVerdict["decision"] {
  return value === "allow" || value === "deny" || value === "ask" ? value : undefined;
}

/** The older PreToolUse output: `decision: "approve"` allows, `"block"` denies. */
function legacyDecision(value: unknown): HookVerdict["decision"] {
  return value === "approve" ? "allow" : value === "block" ? "deny" : undefined;
}

function cappedContext(text: string): { context?: string; note?: string } {
  if (text.length <= maxHookContextCharacters) return { context: text };
  return { context: `${text.slice(0, maxHookContextCharacters)}\n[... ${text.length - maxHookContextCharacters} characters cut]`, note: `context cut at ${maxHookContextCharacters} characters` };
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
