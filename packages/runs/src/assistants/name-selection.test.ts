// Allow and deny lists of names and globs: whole identities, bare names, `*` and `?`, and a hostile
// glob that must not take long (entries come from users).
import { describe, expect, it } from "vitest";
import { entryMatches, globMatches, selector, selects } from "./name-selection.js";

describe("name selections", () => {
  it("matches whole identities, globs and bare names", () => {
    expect(entryMatches("plugin:sales:*", "plugin:sales:call-prep")).toBe(true);
    expect(entryMatches("plugin:sales:*", "plugin:salesforce:sync")).toBe(false);
    expect(entryMatches("public:pdf", "public:pdf")).toBe(true);
    expect(entryMatches("pdf", "public:pdf")).toBe(true);
    expect(entryMatches("pdf", "custom:pdf-tools")).toBe(false);
    expect(entryMatches("pdf*", "custom:pdf-tools")).toBe(true);
    // An entry with a colon is matched against the whole identity only.
    expect(entryMatches("sales:call-prep", "plugin:sales:call-prep")).toBe(false);
    expect(entryMatches("github", "github")).toBe(true);
    expect(entryMatches("git?ub", "github")).toBe(true);
    // Regular-expression characters are themselves.
    expect(entryMatches("a.b", "axb")).toBe(false);
    expect(entryMatches("(x)+", "(x)+")).toBe(true);
  });

  it("allows only an allow list's names, and all but a deny list's", () => {
    const allow = { allow: ["public:*", "forecast"] };
    expect(selects(allow, "public:pdf")).toBe(true);
    expect(selects(allow, "plugin:sales:forecast")).toBe(true);
    expect(selects(allow, "custom:brand-kit")).toBe(false);
    const deny = selector({ deny: ["plugin:*"] });
    expect(deny("plugin:sales:forecast")).toBe(false);
    expect(deny("public:pdf")).toBe(true);
    expect(selects(undefined, "anything")).toBe(true);
  });

  it("answers a glob of many stars against a near miss at once", () => {
    const hostile = `${"*a".repeat(140)}b`;
    const text = "a".repeat(200);
    const started = performance.now();
    expect(globMatches(hostile, text)).toBe(false);
    expect(entryMatches(hostile, `plugin:${text}`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000); // a backtracking matcher takes minutes here
  });
});
