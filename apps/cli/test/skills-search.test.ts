import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

const skillText = (name: string, description: string): string => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`;

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-skills-search-");
  writeTree(temp.dir, {
    "config.yaml": "skills:\n  path: skills\nplugins:\n  path: plugins\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: { "public:docx": { enabled: false } }, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skillText("pdf", "Fill in and merge PDF forms. Use for any PDF file."),
    "skills/public/docx/SKILL.md": skillText("docx", "Edit Word documents and track changes in them."),
    "skills/custom/slack-gif/SKILL.md": skillText("slack-gif", "Make small animated GIFs that look good in Slack."),
    "src/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales", version: "1.0.0" }),
    "src/sales/skills/call-prep/SKILL.md": skillText("call-prep", "Prepare for a sales call: account context, attendees and an agenda."),
  });
});
afterEach(() => temp.cleanup());

const run = (argv: string[], input?: string): Promise<CapturedRun> => runCaptured(argv, { cwd: temp.dir, env: {}, ...(input !== undefined ? { input } : {}) });
type Hit = { identity: string; name: string; description: string; location: string; score: number };

describe("thinktank skills search", () => {
  it("sees an installed plugin's skills in list and search, as the gateway does (issue 18)", async () => {
    expect((await run(["plugins", "install", "src/sales"])).code).toBe(0);
    const listed = JSON.parse((await run(["skills", "list", "--json"])).stdout) as { skills: { identity: string; enabled: boolean }[] };
    expect(listed.skills.map((skill) => [skill.identity, skill.enabled])).toEqual([
      ["public:docx", false],
      ["public:pdf", true],
      ["custom:slack-gif", true],
      ["plugin:sales:call-prep", true],
    ]);
    const found = await run(["skills", "search", "get", "me", "ready", "for", "my", "call", "with", "Acme", "--json"]);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toEqual({
      query: "get me ready for my call with Acme",
      results: [{ identity: "plugin:sales:call-prep", name: "call-prep", description: "Prepare for a sales call: account context, attendees and an agenda.", location: "/mnt/skills/plugins/sales/call-prep/SKILL.md", score: expect.any(Number) }],
    });
    const text = await run(["skills", "search", "animated gif for slack", "--limit", "1"]);
    expect(text.stdout).toMatch(/^ 1\. custom:slack-gif +\d+\.\d{3}\n {4}Make small animated GIFs that look good in Slack\.\n {4}\/mnt\/skills\/custom\/slack-gif\/SKILL\.md\n$/);
  });

  it("answers a batch in order, one JSON line per request, in the contract's shape; never a disabled skill", async () => {
    writeTree(temp.dir, {
      "requests.jsonl": [
        JSON.stringify({ id: "a", query: "merge these two pdf forms" }),
        "",
        JSON.stringify({ query: "track changes in a word document" }),
        JSON.stringify({ query: "a gif for our slack channel", limit: 1 }),
        "not json",
      ].join("\n"),
    });
    const batch = await run(["skills", "search", "--batch", "requests.jsonl"]);
    const lines = batch.stdout.trim().split("\n").map((line) => JSON.parse(line) as { query?: string; results?: Hit[]; line?: number; error?: { code: string } });
    expect(lines.map((line) => line.query ?? `error ${line.line} ${line.error?.code}`)).toEqual(["merge these two pdf forms", "track changes in a word document", "a gif for our slack channel", "error 5 INVALID_JSON"]);
    expect(lines[0]?.results?.[0]).toEqual({ identity: "public:pdf", name: "pdf", description: "Fill in and merge PDF forms.", location: "/mnt/skills/public/pdf/SKILL.md", score: expect.any(Number) });
    for (const line of lines.slice(0, 3)) for (const hit of line.results ?? []) expect(Object.keys(hit)).toEqual(["identity", "name", "description", "location", "score"]);
    expect(lines[1]?.results?.map((hit) => hit.identity)).not.toContain("public:docx");
    expect(lines[2]?.results?.map((hit) => hit.identity)).toEqual(["custom:slack-gif"]);
    expect(batch.code).toBe(1);
    expect(batch.stderr).toContain("1 of the batch's lines failed");

    const fromStdin = await run(["skills", "search", "--batch", "-"], `${JSON.stringify({ query: "pdf" })}\n`);
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout).results[0].identity).toBe("public:pdf");
  });

  it("says what is wrong with the arguments", async () => {
    expect(await run(["skills", "search"])).toMatchObject({ code: 2, stderr: expect.stringContaining("say what the task is") });
    expect(await run(["skills", "search", "pdf", "--limit", "0"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--limit must be a positive integer") });
    expect(await run(["skills", "search", "pdf", "--batch", "x.jsonl"])).toMatchObject({ code: 2, stderr: expect.stringContaining("not both") });
    expect(await run(["skills", "search", "can you please"])).toMatchObject({ code: 0, stdout: "no skills match 'can you please'\n" });
    expect(fs.existsSync(path.join(temp.dir, "skills/public/pdf/SKILL.md"))).toBe(true);
  });
});
