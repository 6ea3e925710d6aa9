import { describe, expect, it } from "vitest";
import { checkSkillFrontmatter } from "./check-skill-frontmatter.js";
import { splitAllowedTools } from "./split-allowed-tools.js";

const messages = (data: Record<string, unknown>, folder = "pdf-tools"): string[] => checkSkillFrontmatter(data, folder).issues.map((issue) => issue.message);

describe("checkSkillFrontmatter", () => {
  it("accepts a valid skill and normalises every known field", () => {
    const { fields, issues } = checkSkillFrontmatter(
      {
        name: "pdf-tools",
        description: "  Reads PDFs.\n",
        license: "MIT",
        compatibility: "Needs poppler",
        "allowed-tools": "Read Bash(git log:*)",
        metadata: { author: "me" },
        "argument-hint": "[file]",
        "user-invocable": false,
        "disable-model-invocation": true,
        when_to_use: "When a PDF is attached",
        model: "claude-sonnet",
        triggers: ["pdf"],
      },
      "pdf-tools",
    );
    expect(issues).toEqual([]);
    expect(fields).toEqual({
      name: "pdf-tools",
      description: "Reads PDFs.",
      license: "MIT",
      compatibility: "Needs poppler",
      allowedTools: ["Read", "Bash(git log:*)"],
      metadata: { author: "me" },
      argumentHint: "[file]",
      userInvocable: false,
      disableModelInvocation: true,
      whenToUse: "When a PDF is attached",
      model: "claude-sonnet",
    });
  });

  it("applies the spec's name rules, each with its own reason", () => {
    expect(messages({ description: "d" })).toEqual(["name is required"]);
    expect(messages({ name: 42, description: "d" })).toEqual(["name must be a string, got number 42"]);
    expect(messages({ name: "PDF", description: "d" }, "PDF")).toEqual(['name "PDF" may only contain lowercase letters a-z, digits and hyphens']);
    expect(messages({ name: "-pdf", description: "d" }, "-pdf")).toEqual(['name "-pdf" must not start or end with a hyphen']);
    expect(messages({ name: "pdf--tools", description: "d" }, "pdf--tools")).toEqual(['name "pdf--tools" must not contain two hyphens in a row']);
    expect(messages({ name: "other", description: "d" })).toEqual(['name "other" must equal its folder\'s name "pdf-tools"']);
    const long = "a".repeat(65);
    expect(messages({ name: long, description: "d" }, long)).toEqual(["name must be at most 64 characters, got 65"]);
    expect(messages({ name: "a".repeat(64), description: "d" }, "a".repeat(64))).toEqual([]);
  });

  it("falls back to the folder's name when the name is unusable", () => {
    expect(checkSkillFrontmatter({ description: "d" }, "folder").fields.name).toBe("folder");
  });

  it("applies the description rules", () => {
    expect(messages({ name: "pdf-tools" })).toEqual(["description is required"]);
    expect(messages({ name: "pdf-tools", description: "   " })).toEqual(["description must not be empty"]);
    expect(messages({ name: "pdf-tools", description: ["a"] })).toEqual(["description must be a string, got a list"]);
    expect(messages({ name: "pdf-tools", description: "use <b>bold</b>" })).toEqual(["description must not contain '<' or '>'"]);
    expect(messages({ name: "pdf-tools", description: "é".repeat(1024) })).toEqual([]);
    expect(messages({ name: "pdf-tools", description: "é".repeat(1025) })).toEqual(["description must be at most 1024 characters, got 1025"]);
  });

  it("checks compatibility, metadata and the types of the other fields", () => {
    const base = { name: "pdf-tools", description: "d" };
    expect(messages({ ...base, compatibility: "x".repeat(501) })).toEqual(["compatibility must be at most 500 characters, got 501"]);
    expect(messages({ ...base, metadata: ["a"] })).toEqual(["metadata must be a map of strings, got a list"]);
    expect(messages({ ...base, metadata: { version: 1.5, nested: { a: 1 } } })).toEqual([
      "metadata.version must be a string, got number 1.5",
      "metadata.nested must be a string, got a map",
    ]);
    expect(checkSkillFrontmatter({ ...base, metadata: { version: 1.5 } }, "pdf-tools").fields.metadata).toEqual({ version: "1.5" });
    expect(messages({ ...base, license: 3 })).toEqual(["license must be a string, got number 3"]);
    expect(messages({ ...base, "allowed-tools": { a: 1 } })).toEqual(["allowed-tools must be a string or a list of strings, got a map"]);
    expect(messages({ ...base, "user-invocable": "yes" })).toEqual(['user-invocable must be true or false, got string "yes"']);
    expect(messages({ ...base, "argument-hint": ["topic"] })).toEqual(["argument-hint is a YAML list; quote it to make it a string"]);
    expect(checkSkillFrontmatter({ ...base, "argument-hint": ["topic"] }, "pdf-tools").fields.argumentHint).toBe("[topic]");
  });

  it("lists every reason at once", () => {
    expect(messages({ name: "Bad--Name-", description: "<x>", compatibility: 5 }, "folder")).toHaveLength(6);
  });
});

describe("splitAllowedTools", () => {
  it("splits on spaces or commas outside parentheses, and accepts lists", () => {
    expect(splitAllowedTools("Read Grep  Glob")).toEqual(["Read", "Grep", "Glob"]);
    expect(splitAllowedTools("Read, WebFetch, Bash")).toEqual(["Read", "WebFetch", "Bash"]);
    expect(splitAllowedTools("Bash(git log:*), Bash(npm run test:*) Read")).toEqual(["Bash(git log:*)", "Bash(npm run test:*)", "Read"]);
    expect(splitAllowedTools(["Read", " Bash "])).toEqual(["Read", "Bash"]);
    expect(splitAllowedTools(undefined)).toEqual([]);
  });
});
