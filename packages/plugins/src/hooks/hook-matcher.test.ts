import { describe, expect, it } from "vitest";
import { hookToolNames } from "./claude-tool-input.js";
import { compileHookMatcher } from "./hook-matcher.js";

const bash = hookToolNames({ name: "bash" });
const edit = hookToolNames({ name: "str_replace" });
const ls = hookToolNames({ name: "ls" });
const mcp = hookToolNames({ name: "memory__create_entities", mcp: { server: "memory", tool: "create_entities" } });
const script = hookToolNames({ name: "word_count" });

describe("hook matchers, as Claude Code reads them", () => {
  it("names our tools as Claude Code does, tool_name first, and keeps the agent's own name", () => {
    expect(bash).toEqual(["Bash", "bash"]);
    expect(hookToolNames({ name: "write_file" })).toEqual(["Write", "write_file"]);
    expect(hookToolNames({ name: "read_file" })).toEqual(["Read", "read_file"]);
    expect(edit).toEqual(["Edit", "MultiEdit", "NotebookEdit", "str_replace"]);
    expect(ls).toEqual(["LS", "Glob", "ls"]);
    expect(hookToolNames({ name: "web_search" })).toEqual(["WebSearch", "web_search"]);
    expect(mcp).toEqual(["mcp__memory__create_entities", "memory__create_entities"]);
    expect(script).toEqual(["word_count"]);
  });

  it("absent, empty and * match every tool", () => {
    for (const matcher of [undefined, "", "*"]) expect(compileHookMatcher(matcher).matches(script)).toBe(true);
  });

  it("plain names match exactly and case-sensitively; | separates alternatives", () => {
    expect(compileHookMatcher("Bash").matches(bash)).toBe(true);
    expect(compileHookMatcher("bash").matches(bash)).toBe(true);
    expect(compileHookMatcher("BASH").matches(bash)).toBe(false);
    expect(compileHookMatcher("Bas").matches(bash)).toBe(false);
    expect(compileHookMatcher("Edit|Write").matches(edit)).toBe(true);
    expect(compileHookMatcher("Edit|Write").matches(bash)).toBe(false);
    expect(compileHookMatcher("Glob").matches(ls)).toBe(true);
    expect(compileHookMatcher("Grep").matches(bash)).toBe(false);
    expect(compileHookMatcher("mcp__memory__create_entities").matches(mcp)).toBe(true);
  });

  it("anything else is a regular expression tested against each name", () => {
    expect(compileHookMatcher("Notebook.*").matches(edit)).toBe(true);
    expect(compileHookMatcher("mcp__memory__.*").matches(mcp)).toBe(true);
    expect(compileHookMatcher("mcp__.*").matches(bash)).toBe(false);
    expect(compileHookMatcher("^(Write|Edit)$").matches(edit)).toBe(true);
  });

  it("an invalid regular expression matches nothing and says why", () => {
    const matcher = compileHookMatcher("Bash(");
    expect(matcher.problem).toMatch(/not a valid regular expression/);
    expect(matcher.matches(bash)).toBe(false);
  });

  it("refuses patterns that can backtrack for ever in the agent's process: a repeated group, many repetitions, a long pattern", () => {
    const hostile = ["(a+)+$", "(x|xx)*y", "(?:Ba+)+h", ".*a.*b.*c.*d", `${"B".repeat(300)}.*`];
    for (const pattern of hostile) {
      const matcher = compileHookMatcher(pattern);
      expect(matcher.problem, pattern).toBeDefined();
      const started = performance.now();
      expect(matcher.matches([`${"a".repeat(40)}!`])).toBe(false);
      expect(performance.now() - started).toBeLessThan(50);
    }
    expect(compileHookMatcher("\\)+Bash").problem).toBeUndefined();
    expect(compileHookMatcher("[)]+Bash").problem).toBeUndefined();
  });
});
