import path from "node:path";
import { corpusDir, missingReason, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { AgentFolder } from "./agent-folder.js";
import { parseAgent } from "./parse-agent.js";

const parse = (text: string, file = "x.md") => parseAgent(text, { file });

describe("parseAgent", () => {
  it("reads name, description, tools (a comma string or a list) and model, keeping the frontmatter", () => {
    const comma = parse("---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep, Bash(git log:*)\nmodel: haiku\n---\nBody.\n");
    expect(comma).toMatchObject({ ok: true, warnings: [], agent: { name: "reviewer", file: "x.md", description: "Reviews code.", tools: ["Read", "Grep", "Bash(git log:*)"], model: "haiku" } });
    const list = parse("---\nname: reviewer\ndescription: Reviews code.\ntools:\n  - Read\n  - mcp__github__search\n---\nBody.\n");
    expect(list).toMatchObject({ ok: true, warnings: [], agent: { tools: ["Read", "mcp__github__search"] } });
    // No tools key: the lead's tools (undefined); an empty one: none at all.
    const noTools = parse("---\nname: a\ndescription: d\n---\nB\n");
    expect(noTools.ok && "tools" in noTools.agent).toBe(false);
    expect(parse('---\nname: a\ndescription: d\ntools: ""\n---\nB\n')).toMatchObject({ ok: true, agent: { tools: [] }, warnings: [expect.objectContaining({ message: expect.stringContaining("tools is empty") })] });
  });

  it("warns on departures and loads: no description (the body's first paragraph), no name (the file's), unknown keys, YAML read line by line, no frontmatter", () => {
    const noDescription = parse("---\nname: grader\n---\n# Grader\n\nEvaluates expectations against a transcript.\n", "grader.md");
    expect(noDescription).toMatchObject({ ok: true, agent: { description: "Evaluates expectations against a transcript." }, warnings: [expect.objectContaining({ lenient: true, message: expect.stringContaining("no description") })] });
    const noName = parse("---\ndescription: d\ncolour: red\n---\nB\n", "agents/triage.md");
    expect(noName.ok && noName.agent.name).toBe("triage");
    expect(noName.ok && noName.warnings.map((w) => w.message)).toEqual([expect.stringContaining("named 'triage' after its file"), "'colour' is not a field of Claude Code agent files; kept as written"]);
    expect(noName.ok && noName.agent.frontmatter).toEqual({ description: "d", colour: "red" });
    const lineWise = parse("---\nname: a\ndescription: Use when: the user asks\n---\nB\n");
    expect(lineWise).toMatchObject({ ok: true, agent: { description: "Use when: the user asks" }, warnings: [expect.objectContaining({ lenient: true, line: 3 })] });
    const bare = parse("# Comparator\n\nCompares two outputs blind.\n", "comparator.md");
    expect(bare).toMatchObject({ ok: true, agent: { name: "comparator", description: "Compares two outputs blind." } });
    const unusualName = parse("---\nname: Code_Reviewer\ndescription: d\n---\nB\n");
    expect(unusualName).toMatchObject({ ok: true, agent: { name: "Code_Reviewer" }, warnings: [expect.objectContaining({ message: expect.stringContaining("lowercase letters") })] });
  });

  it("refuses only what cannot be used, with a code: no description anywhere, frontmatter past a bound or never closed, tools or model of an unreadable shape, no usable name", () => {
    expect(parse("---\nname: a\n---\n")).toMatchObject({ ok: false, code: "INVALID_AGENT", problem: { severity: "error", message: expect.stringContaining("no description") } });
    expect(parse(`---\nname: a\ndescription: d\nx: "${"a".repeat(70_000)}"\n---\nB\n`)).toMatchObject({ ok: false, code: "FRONTMATTER_TOO_COMPLEX" });
    expect(parse("---\nname: a\ndescription: d\n")).toMatchObject({ ok: false, code: "INVALID_AGENT", problem: { message: expect.stringContaining("no closing") } });
    expect(parse("---\nname: a\ndescription: d\ntools: {Read: true}\n---\nB\n")).toMatchObject({ ok: false, problem: { message: expect.stringContaining("tools must be") } });
    expect(parse("---\nname: a\ndescription: d\nmodel: [sonnet]\n---\nB\n")).toMatchObject({ ok: false, problem: { message: expect.stringContaining("model must be text") } });
    // A name that lies (a bidi control, a path) is not used; the file name is, when it is usable.
    expect(parse("---\nname: \"revie\u202Ewer\"\ndescription: d\n---\nB\n", "ok.md")).toMatchObject({ ok: true, agent: { name: "ok" } });
    expect(parse("---\nname: ../x\ndescription: d\n---\nB\n", "bad name!.md")).toMatchObject({ ok: false, code: "INVALID_AGENT" });
  });
});

describe("the corpus's agent files", needs("corpus"), () => {
  const corpus = missingReason("corpus") === undefined ? corpusDir() : "";

  it("brand-voice's five agents read cleanly with their tools lists and models", () => {
    const folder = new AgentFolder({ root: path.join(corpus, "knowledge-work-plugins/partner-built/brand-voice/agents"), watch: false });
    folder.refresh();
    expect(folder.agents.map((agent) => [agent.name, agent.model, agent.tools])).toEqual([
      ["content-generation", "sonnet", ["Read", "Glob", "Grep"]],
      ["conversation-analysis", "sonnet", undefined],
      ["discover-brand", "sonnet", undefined],
      ["document-analysis", "sonnet", undefined],
      ["quality-assurance", "haiku", ["Read", "Glob", "Grep"]],
    ]);
    expect(folder.problems).toEqual([]);
    expect(folder.agents[0]!.description).toMatch(/^Generates brand-aligned sales and marketing content/);
  });

  it("skill-creator's three agent files (no frontmatter) load as a folder, named after their files, with a warning each", () => {
    const folder = new AgentFolder({ root: path.join(corpus, "anthropic-skills/skill-creator/agents"), watch: false });
    folder.refresh();
    expect(folder.agents.map((agent) => agent.name)).toEqual(["analyzer", "comparator", "grader"]);
    expect(folder.agents.find((agent) => agent.name === "grader")?.description).toBe("Evaluate expectations against an execution transcript and outputs.");
    expect(folder.problems.map((problem) => [problem.file, problem.severity])).toEqual([
      ["analyzer.md", "warning"],
      ["comparator.md", "warning"],
      ["grader.md", "warning"],
    ]);
  });
});
