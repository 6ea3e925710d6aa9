import { describe, expect, it } from "vitest";
import { findFrontmatterExcess, frontmatterLimits } from "./frontmatter-limits.js";
import { parseFrontmatter } from "./parse-frontmatter.js";

/** Billion laughs: each level lists the one before `width` times; top-level keys use the deepest. */
function aliasBomb(levels: number, width: number): string {
  const lines = ["---", "name: bomb", "description: Looks harmless."];
  lines.push(`l0: &l0 [${Array.from({ length: width }, () => '"lol"').join(", ")}]`);
  for (let level = 1; level < levels; level++) lines.push(`l${level}: &l${level} [${Array.from({ length: width }, () => `*l${level - 1}`).join(", ")}]`);
  for (let key = 0; key < 5; key++) lines.push(`k${key}: *l${levels - 1}`);
  return `${lines.join("\n")}\n---\n# Body\n`;
}

const tooComplex = (why: RegExp) => ({ ok: false, problem: { code: "FRONTMATTER_TOO_COMPLEX", message: expect.stringMatching(why) } });

describe("frontmatter limits", () => {
  it("refuses a billion-laughs block (10^10 values once expanded) without expanding it", () => {
    const result = parseFrontmatter(aliasBomb(10, 10));
    expect(result).toMatchObject(tooComplex(/more than 10000 values/));
    expect(result.body).toBe("# Body\n");
  });

  it("refuses one long string used through many aliases", () => {
    const long = "x".repeat(40_000);
    const text = `---\nname: a\ndescription: &d "${long}"\nagain: [${Array.from({ length: 8 }, () => "*d").join(", ")}]\n---\n`;
    expect(parseFrontmatter(text)).toMatchObject(tooComplex(/characters of text/));
  });

  it("refuses more than maxAliases alias uses, even of a tiny value", () => {
    const uses = Array.from({ length: frontmatterLimits.maxAliases + 1 }, () => "*x").join(", ");
    expect(parseFrontmatter(`---\nx: &x 1\nmany: [${uses}]\n---\n`)).toMatchObject(tooComplex(/maxAliases/));
  });

  it("refuses an alias that refers to itself (a cycle no JSON can hold)", () => {
    expect(parseFrontmatter("---\nname: a\nloop: &loop [1, *loop]\n---\n")).toMatchObject(tooComplex(/levels deep/));
    expect(parseFrontmatter("---\nname: a\nloop: &loop\n  again: *loop\n---\n")).toMatchObject(tooComplex(/levels deep/));
  });

  it("accepts nesting up to maxDepth levels and refuses one more, in the source or through aliases", () => {
    const nested = (levels: number): string => `---\na: ${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}\n---\n`; // the top map is a level
    expect(parseFrontmatter(nested(frontmatterLimits.maxDepth))).toMatchObject({ ok: true });
    expect(parseFrontmatter(nested(frontmatterLimits.maxDepth + 1))).toMatchObject(tooComplex(/maxDepth/));
    // 4 levels each, stacked 6 times through aliases: 1 + 6 * 4 = 25 levels with no deep source line.
    const lines = ["---", "d0: &d0 [[[[1]]]]"];
    for (let i = 1; i < 6; i++) lines.push(`d${i}: &d${i} [[[[*d${i - 1}]]]]`);
    expect(parseFrontmatter(`${lines.join("\n")}\n---\n`)).toMatchObject(tooComplex(/levels deep/));
  });

  it("refuses a block over maxBytes, and a flat list of more than maxNodes values", () => {
    const big = `---\nname: a\ndescription: "${"é".repeat(frontmatterLimits.maxBytes / 2)}"\n---\n`;
    expect(parseFrontmatter(big)).toMatchObject(tooComplex(/bytes, more than 65536/));
    const many = `---\nlist: [${Array.from({ length: frontmatterLimits.maxNodes }, () => "1").join(",")}]\n---\n`;
    expect(parseFrontmatter(many)).toMatchObject(tooComplex(/more than 10000 values/));
  });

  it("accepts a large but realistic block, aliases included", () => {
    const description = `Handles reports. ${"Use it when a report must be drafted, checked or sent. ".repeat(70)}`.trim();
    const lines = [
      "---",
      "name: report-writer",
      `description: ${JSON.stringify(description)}`,
      "license: Apache-2.0",
      `allowed-tools: [${Array.from({ length: 200 }, (_, i) => `Tool${i}`).join(", ")}]`,
      "metadata:",
      ...Array.from({ length: 60 }, (_, i) => `  key${i}: "value ${i}"`),
      "defaults: &defaults",
      "  format: markdown",
      "  sections: [summary, details, appendix]",
      "variants:",
      ...Array.from({ length: 20 }, (_, i) => `  v${i}: *defaults`),
      "---",
      "# Report writer",
    ];
    const result = parseFrontmatter(lines.join("\n"));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data.description).toBe(description);
    expect((result.data["allowed-tools"] as string[]).length).toBe(200);
    expect(result.data.variants).toMatchObject({ v19: { format: "markdown", sections: ["summary", "details", "appendix"] } });
  });

  it("tells malformed YAML (INVALID_YAML) from a bound", () => {
    expect(parseFrontmatter("---\nname: [unclosed\n---\n")).toMatchObject({ ok: false, problem: { code: "INVALID_YAML" } });
  });

  it("stops counting at the first bound passed", () => {
    let shared: unknown = ["lol"];
    for (let level = 0; level < 12; level++) shared = Array.from({ length: 10 }, () => shared); // 10^12 values, 13 arrays
    expect(findFrontmatterExcess({ top: shared })).toMatch(/more than 10000 values/);
    expect(findFrontmatterExcess({ top: shared }, { ...frontmatterLimits, maxNodes: 50 })).toMatch(/more than 50 values/);
    expect(findFrontmatterExcess({ a: "ok" })).toBeUndefined();
  });
});
