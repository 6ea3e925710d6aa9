import { claudeCodeToolNames } from "@thinktank/skills";

/** A tool call as a hook sees it: the agent's tool, and for a direct-mode MCP tool its server and MCP name. */
export interface HookToolCall {
  /** The agent's tool name (`bash`, `write_file`, `github__create_issue`, `word_count`). */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The call's id (`tool_use_id`). */
  readonly id?: string;
  /** Set for an MCP tool offered directly: Claude Code names it `mcp__<server>__<tool>`. */
  readonly mcp?: { readonly server: string; readonly tool: string };
}

/** Argument names that differ between an agent tool and its Claude Code counterpart: agent → Claude Code. */
const renamedArguments: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  read_file: { path: "file_path" },
  write_file: { path: "file_path" },
  str_replace: { path: "file_path", old_str: "old_string", new_str: "new_string" },
};

/**
 * The names a matcher is tested against, Claude Code's `tool_name` first: `Bash` for bash, `Edit`
 * (and `MultiEdit`, `NotebookEdit`) for str_replace, `LS` and `Glob` for ls, `mcp__<server>__<tool>`
 * for a direct MCP tool; then the agent's own name, so `write_file` matches too. A tool Claude
 * Code has no name for (execute_code, a skill's script tool) is known by its own name only.
 */
export function hookToolNames(call: Pick<HookToolCall, "name" | "mcp">): readonly string[] {
  const claude = call.mcp ? [`mcp__${call.mcp.server}__${call.mcp.tool}`] : claudeCodeToolNames(call.name);
  return claude.length === 0 ? [call.name] : [...claude, call.name];
}

/**
 * `tool_input` in Claude Code's field names where the agent's tool has a counterpart (`path` →
 * `file_path`, `old_str` → `old_string`, bash's `timeout` seconds → milliseconds); other fields
 * and other tools' arguments as they are.
 */
export function toClaudeToolInput(call: Pick<HookToolCall, "name" | "args">): Record<string, unknown> {
  const renamed = renamedArguments[call.name];
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(call.args)) if (key !== "__proto__") input[renamed?.[key] ?? key] = value;
  if (call.name === "bash" && typeof call.args.timeout === "number") input.timeout = call.args.timeout * 1000;
  return input;
}

/**
 * The arguments a call runs with after a hook's `updatedInput` (Claude Code's field names, mapped
 * back): merged over the original arguments, so a hook may name only what it changes. The tool's
 * schema still checks the result when it runs.
 */
export function fromClaudeToolInput(call: Pick<HookToolCall, "name" | "args">, updated: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const renamed = renamedArguments[call.name] ?? {};
  const back = new Map(Object.entries(renamed).map(([agent, claude]) => [claude, agent]));
  const args: Record<string, unknown> = { ...call.args };
  for (const [key, value] of Object.entries(updated)) {
    if (key === "__proto__") continue;
    args[back.get(key) ?? key] = call.name === "bash" && key === "timeout" && typeof value === "number" ? value / 1000 : value;
  }
  return args;
}
