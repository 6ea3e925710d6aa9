import type { ToolProblem } from "./tool-definition.js";

/** A registered tool's name: what the model calls it by, and part of its script's file name. */
export const toolNamePattern = "^[a-zA-Z0-9_-]{1,64}$";
const toolNameRegExp = new RegExp(toolNamePattern);

/**
 * Names the agent's own tools use (built-ins, code mode, the universal file tools, skills):
 * a registered tool may not take one, in any letter case, so the model never sees two tools
 * of one name. `code_execution` is the specification's name for codemode's `execute_code`.
 */
export const builtinToolNames = [
  "code_execution",
  "execute_code",
  "web_search",
  "request_human_input",
  "list_servers",
  "search_tools",
  "read_file",
  "write_file",
  "ls",
  "str_replace",
  "bash",
  "present_files",
  "view_skill",
  "read_resource",
] as const;

/** Problems with `name` as the name of a new tool (empty when it is fine). */
export function checkToolName(name: unknown, reserved: readonly string[] = builtinToolNames): ToolProblem[] {
  if (typeof name !== "string") return [{ path: "name", message: `must be a string, got ${describe(name)}` }];
  if (!toolNameRegExp.test(name)) {
    return [{ path: "name", message: `'${name}' is not a valid tool name: use 1 to 64 letters, digits, '_' or '-' (${toolNamePattern})` }];
  }
  const lower = name.toLowerCase();
  if (reserved.some((builtin) => builtin.toLowerCase() === lower)) {
    return [{ path: "name", message: `'${name}' is the name of a built-in tool; choose another` }];
  }
  return [];
}

export function isValidToolName(name: string): boolean {
  return toolNameRegExp.test(name);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return Array.isArray(value) ? "a list" : typeof value;
}
