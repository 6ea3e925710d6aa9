/** Claude Code tool names in `allowed-tools` and the agent's tools they stand for. */
const claudeCodeNames: Readonly<Record<string, readonly string[]>> = {
  read: ["read_file"],
  write: ["write_file"],
  edit: ["str_replace"],
  multiedit: ["str_replace"],
  notebookedit: ["str_replace"],
  ls: ["ls"],
  glob: ["ls"],
  grep: ["bash"],
  bash: ["bash"],
  websearch: ["web_search"],
  askuserquestion: ["request_human_input"],
};

/** Tools that stay whatever allowed-tools says: loading and moving between contexts. */
const loaderTools: readonly string[] = ["read_file", "view_skill", "search_tools", "leave_skill", "read_resource"];

/**
 * The set of agent tool names a skill's `allowed-tools` permits, or undefined when it does not
 * restrict (no allowed-tools). Accepts the agent's own names (`read_file`, `execute_code`) and
 * Claude Code's (`Read`, `Write`, `Edit`, `Bash(git add:*)` → bash, `Glob` → ls, ...); MCP names
 * (`mcp__server__tool`) are matched against the MCP part of the name. The loader tools always stay.
 */
export function permittedTools(allowedTools: readonly string[]): ReadonlySet<string> | undefined {
  if (allowedTools.length === 0) return undefined;
  const names = new Set<string>(loaderTools);
  for (const entry of allowedTools) {
    const bare = entry.replace(/\(.*\)$/s, "").trim();
    if (bare === "") continue;
    names.add(bare);
    for (const mapped of claudeCodeNames[bare.toLowerCase()] ?? []) names.add(mapped);
    const mcp = /^mcp__(.+?)__(.+)$/.exec(bare);
    if (mcp) names.add(`${mcp[1]}__${mcp[2]}`);
  }
  return names;
}
