import { describe, expect, it } from "vitest";
import { fromClaudeToolInput, toClaudeToolInput } from "./claude-tool-input.js";

describe("tool_input in Claude Code's field names, and updatedInput back", () => {
  it("renames the file tools' arguments and bash's timeout (seconds ↔ milliseconds); other tools keep theirs", () => {
    expect(toClaudeToolInput({ name: "str_replace", args: { path: "/a", old_str: "x", new_str: "y", replace_all: true } })).toEqual({ file_path: "/a", old_string: "x", new_string: "y", replace_all: true });
    expect(toClaudeToolInput({ name: "bash", args: { command: "ls", timeout: 5 } })).toEqual({ command: "ls", timeout: 5000 });
    expect(toClaudeToolInput({ name: "word_count", args: { path: "/a" } })).toEqual({ path: "/a" });
    expect(fromClaudeToolInput({ name: "write_file", args: { path: "/a", content: "c" } }, { file_path: "/b" })).toEqual({ path: "/b", content: "c" });
    expect(fromClaudeToolInput({ name: "bash", args: { command: "ls" } }, { command: "pwd", timeout: 2000 })).toEqual({ command: "pwd", timeout: 2 });
  });

  it("an updatedInput naming __proto__ changes no prototype", () => {
    const updated = JSON.parse('{"__proto__": {"polluted": true}, "command": "pwd"}') as Record<string, unknown>;
    const args = fromClaudeToolInput({ name: "bash", args: { command: "ls" } }, updated);
    expect(args).toEqual({ command: "pwd" });
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    const input = toClaudeToolInput({ name: "bash", args: JSON.parse('{"__proto__": {"polluted": true}, "command": "ls"}') as Record<string, unknown> });
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
  });
});
