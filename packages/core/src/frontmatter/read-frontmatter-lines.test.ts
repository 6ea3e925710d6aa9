import { describe, expect, it } from "vitest";
import { frontmatterLimits } from "./frontmatter-limits.js";
import { parseFrontmatter } from "./parse-frontmatter.js";
import { readFrontmatterLines } from "./read-frontmatter-lines.js";

// The shape Claude Code loads and a strict YAML parser refuses: an unquoted ': ' inside a one-line description.
const agent = [
  "---",
  "name: reviewer",
  'description: Use this agent after a change. <example>Context: the user edited code. user: "Review it" assistant: "I will use the reviewer"</example>',
  "model: inherit",
  "---",
  "You review code.",
].join("\n");

describe("parseFrontmatter with lineWise", () => {
  it("reads YAML a strict parser refuses line by line, and says why YAML refused it", () => {
    expect(parseFrontmatter(agent)).toMatchObject({ ok: false, problem: { code: "INVALID_YAML" } });
    const result = parseFrontmatter(agent, { lineWise: true });
    expect(result).toMatchObject({
      ok: true,
      hasFrontmatter: true,
      body: "You review code.",
      data: {
        name: "reviewer",
        description: 'Use this agent after a change. <example>Context: the user edited code. user: "Review it" assistant: "I will use the reviewer"</example>',
        model: "inherit",
      },
      recovered: { code: "INVALID_YAML", line: 3 },
    });
  });

  it("leaves well-formed YAML to the YAML parser (no recovered) and never recovers a bound", () => {
    const plain = parseFrontmatter("---\nname: x\nlist: [a, b]\n---\n", { lineWise: true });
    expect(plain).toEqual({ ok: true, data: { name: "x", list: ["a", "b"] }, body: "", hasFrontmatter: true });
    const bomb = `---\na: &a [x, x]\n${Array.from({ length: 200 }, (_, i) => `k${i}: *a`).join("\n")}\n---\n`;
    expect(parseFrontmatter(bomb, { lineWise: true })).toMatchObject({ ok: false, problem: { code: "FRONTMATTER_TOO_COMPLEX" } });
    const huge = `---\ndescription: x: ${"y".repeat(frontmatterLimits.maxBytes)}\n---\n`;
    expect(parseFrontmatter(huge, { lineWise: true })).toMatchObject({ ok: false, problem: { code: "FRONTMATTER_TOO_COMPLEX" } });
  });

  it("holds the line-wise reading to the node and text bounds", () => {
    const many = `---\nbad: a: b\n${Array.from({ length: frontmatterLimits.maxNodes }, (_, i) => `k${i}: v`).join("\n")}\n---\n`;
    expect(Buffer.byteLength(many)).toBeLessThan(frontmatterLimits.maxBytes * 2);
    expect(readFrontmatterLines(many.split("\n").slice(1, -2).join("\n"))).toBeUndefined();
    const tight = { ...frontmatterLimits, maxTextLength: 60 };
    expect(readFrontmatterLines(`description: ${"z".repeat(60)}`, tight)).toBeUndefined();
    expect(readFrontmatterLines(`description: ${"z".repeat(40)}`, tight)).toEqual({ description: "z".repeat(40) });
  });
});

describe("readFrontmatterLines", () => {
  it("reads block scalars, lists, maps of strings, quotes and booleans; the first of a repeated key wins", () => {
    const text = [
      "name: 'quoted: name'",
      "description: |",
      "  line one: with colon",
      "  line two",
      "folded: >-",
      "  a",
      "  b",
      "allowed-tools:",
      "  - Read",
      "  - Bash(git: *)",
      "metadata:",
      "  version: 1.0",
      "  author: someone",
      "user-invocable: false",
      "plain: starts here",
      "  and goes on",
      "name: second",
      "__proto__: polluted",
      "# a comment",
    ].join("\n");
    const data = readFrontmatterLines(text);
    expect(data).toEqual({
      name: "quoted: name",
      description: "line one: with colon\nline two\n",
      folded: "a b",
      "allowed-tools": ["Read", "Bash(git: *)"],
      metadata: { version: "1.0", author: "someone" },
      "user-invocable": false,
      plain: "starts here and goes on",
    });
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
