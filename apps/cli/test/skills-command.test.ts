import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n`;

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-skills-");
  writeTree(temp.dir, {
    "config.yaml": "skills:\n  path: skills\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: { "public:docx": { enabled: false } }, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skillText("pdf"),
    "skills/public/docx/SKILL.md": skillText("docx"),
    "skills/public/broken/SKILL.md": "---\nname: broken\n---\n",
    "skills/custom/.gitkeep": "",
  });
});
afterEach(() => temp.cleanup());

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd: temp.dir, env: {} });

describe("thinktank skills", () => {
  it("lists skills with their state, and reports skipped ones", async () => {
    const result = await run("skills", "list");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/public:docx\s+disabled\s+trusted\s+Does docx things\./);
    expect(result.stdout).toMatch(/public:pdf\s+enabled\s+trusted\s+Does pdf things\./);
    expect(result.stderr).toMatch(/skipped: .*broken.*description is required/);
    const json = JSON.parse((await run("skills", "list", "--json")).stdout) as { skills: { identity: string; enabled: boolean; location: string }[]; problems: unknown[] };
    expect(json.skills.map((s) => [s.identity, s.enabled, s.location])).toEqual([
      ["public:docx", false, "/mnt/skills/public/docx/SKILL.md"],
      ["public:pdf", true, "/mnt/skills/public/pdf/SKILL.md"],
    ]);
    expect(json.problems).toHaveLength(1);
  });

  it("validates a folder, a SKILL.md or an archive, printing every problem and exiting 1 when invalid", async () => {
    expect(await run("skills", "validate", "skills/public/pdf")).toMatchObject({ code: 0, stdout: 'skills/public/pdf: valid skill "pdf"\n' });
    expect((await run("skills", "validate", "skills/public/pdf/SKILL.md")).code).toBe(0);
    writeTree(temp.dir, { "bad/Bad_Skill/SKILL.md": "---\nname: Bad_Skill\ndescription: has <angle> brackets\nmetadata: [1]\n---\n" });
    const bad = await run("skills", "validate", "bad/Bad_Skill");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("not a valid skill (3 problems)");
    expect(bad.stdout).toContain("may only contain lowercase letters");
    expect(bad.stdout).toContain("must not contain '<' or '>'");
    expect(bad.stdout).toContain("metadata must be a map of strings");
    fs.writeFileSync(path.join(temp.dir, "evil.zip"), buildZip([{ name: "x/SKILL.md", data: skillText("x") }, { name: "../escape", data: "x" }]));
    const evil = await run("skills", "validate", "evil.zip", "--json");
    expect(evil.code).toBe(1);
    expect(JSON.parse(evil.stdout)).toMatchObject({ valid: false, problems: [expect.stringContaining("ARCHIVE_PATH_TRAVERSAL")] });
    expect(await run("skills", "validate")).toMatchObject({ code: 2, stderr: expect.stringContaining("thinktank skills validate: expected one PATH (a skill folder, its SKILL.md, or a .skill/.zip archive)") });
    expect(await run("skills", "list", "extra")).toMatchObject({ code: 2, stderr: expect.stringContaining("Usage: thinktank skills list [--json]") });
  });

  it("installs through the library and the store, refusing a second install without --overwrite", async () => {
    writeTree(temp.dir, { "incoming/fresh/SKILL.md": skillText("fresh") });
    const before = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")) as { revision?: number };
    const result = await run("skills", "install", "incoming/fresh");
    expect(result).toMatchObject({ code: 0, stdout: "installed custom:fresh (enabled, untrusted) at /mnt/skills/custom/fresh/SKILL.md\n" });
    expect(fs.existsSync(path.join(temp.dir, "skills/custom/fresh/SKILL.md"))).toBe(true);
    const after = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")) as { revision: number };
    expect(after.revision).toBe((before.revision ?? 0) + 1);
    const again = await run("skills", "install", "incoming/fresh");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("SKILL_NAME_CONFLICT");
    expect((await run("skills", "install", "incoming/fresh", "--overwrite")).code).toBe(0);
    const trusted = await run("skills", "install", "incoming/fresh", "--overwrite", "--trusted", "--json");
    expect(JSON.parse(trusted.stdout)).toMatchObject({ identity: "custom:fresh", trusted: true, scripts_approved: false });
    expect((await run("skills", "list")).stdout).toMatch(/custom:fresh\s+enabled\s+trusted\s+Does fresh things\./);
    expect(JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")).skills["custom:fresh"]).toEqual({ enabled: true, trusted: true });
  });
});
