import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "./parse-frontmatter.js";

describe("parseFrontmatter", () => {
  it("reads plain, quoted, folded and literal values and keeps the body", () => {
    const text = [
      "---",
      "name: pdf-tools",
      'description: "Quoted: with a colon"',
      "folded: >",
      "  one",
      "  two",
      "literal: |",
      "  line 1",
      "  line 2",
      "list: [a, b]",
      "---",
      "# Body",
      "",
    ].join("\n");
    const result = parseFrontmatter(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data).toEqual({
      name: "pdf-tools",
      description: "Quoted: with a colon",
      folded: "one two\n",
      literal: "line 1\nline 2\n",
      list: ["a", "b"],
    });
    expect(result.body).toBe("# Body\n");
  });

  it("handles CRLF line ends and a BOM", () => {
    const result = parseFrontmatter("\uFEFF---\r\nname: x\r\n---\r\nbody\r\n");
    expect(result).toMatchObject({ ok: true, data: { name: "x" }, body: "body\r\n" });
  });

  it("keeps dates as strings (core schema)", () => {
    const result = parseFrontmatter("---\ndate: 2024-01-02\n---\n");
    expect(result).toMatchObject({ ok: true, data: { date: "2024-01-02" } });
  });

  it("treats a file without frontmatter as empty data", () => {
    expect(parseFrontmatter("# Just markdown\n")).toEqual({ ok: true, data: {}, body: "# Just markdown\n", hasFrontmatter: false });
  });

  it("accepts an empty frontmatter block", () => {
    expect(parseFrontmatter("---\n---\nbody")).toMatchObject({ ok: true, data: {}, body: "body" });
  });

  it("reports malformed YAML with the line in the whole file", () => {
    const result = parseFrontmatter("---\nname: x\ndescription: [unclosed\n---\n");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.message).toMatch(/invalid YAML/);
    expect(result.problem.line).toBeGreaterThanOrEqual(3);
  });

  it("reports a missing closing line", () => {
    const result = parseFrontmatter("---\nname: x\n");
    expect(result).toMatchObject({ ok: false, problem: { message: expect.stringMatching(/no closing/) } });
  });

  it("refuses a frontmatter that is not a mapping", () => {
    expect(parseFrontmatter("---\n- a\n- b\n---\n")).toMatchObject({ ok: false });
  });
});
