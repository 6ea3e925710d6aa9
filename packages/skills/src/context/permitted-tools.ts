/**
 * Claude Code's tool names and the agent's tools they stand for in `allowed-tools`. `same` marks the
 * names an agent tool is known by in Claude Code (a hook's matcher and `tool_name`); Grep is only a
 * permission (grepping needs bash), so a bash call is not a Grep call.
 */
const claudeCodeTools: readonly { readonly claude: string; readonly agent: string; readonly same: boolean }[] = [
  { claude: "Read", agent: "read_file", same: true },
  { claude: "Write", agent: "write_file", same: true },
  { claude: "Edit", agent: "str_replace", same: true },
  { claude: "MultiEdit", agent: "str_replace", same: true },
  { claude: "NotebookEdit", agent: "str_replace", same: true },
  { claude: "LS", agent: "ls", same: true },
  { claude: "Glob", agent: "ls", same: true },
  { claude: "Grep", agent: "bash", same: false },
  { claude: "Bash", agent: "bash", same: true },
  { claude: "WebSearch", agent: "web_search", same: true },
  { claude: "AskUserQuestion", agent: "request_human_input", same: true },
];

/** Claude Code tool names (lower case) in `allowed-tools` and the agent's tools they stand for. */
const claudeCodeNames: ReadonlyMap<string, readonly string[]> = new Map(claudeCodeTools.map((entry) => [entry.claude.toLowerCase(), [entry.agent]]));

/**
 * The names Claude Code knows an agent tool by, the first being its `tool_name` (str_replace:
 * Edit, MultiEdit, NotebookEdit; ls: LS, Glob); empty for a tool Claude Code has no name for.
 * The reverse of what `permittedTools` maps.
 */
export function claudeCodeToolNames(agentTool: string): readonly string[] {
  return claudeCodeTools.filter((entry) => entry.same && entry.agent === agentTool).map((entry) => entry.claude);
}

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
    for (const mapped of claudeCodeNames.get(bare.toLowerCase()) ?? []) names.add(mapped);
    const mcp = /^mcp__(.+?)__(.+)$/.exec(bare);
    if (mcp) names.add(`${mcp[1]}__${mcp[2]}`);
  }
  return names;
}
