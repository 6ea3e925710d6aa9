import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { anthropicSkillsRepository, copyFromCorpus, makeTempDir, needs } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PluginManager } from "./plugin-manager.js";

// The plugins the issue found refused, reproduced from corpus copies: each installs with the
// expected warnings, returned by the install and by GET; strict=true refuses; unsafe variants are refused.
let temp: { dir: string; cleanup: () => void };
let manager: PluginManager;
beforeEach(() => {
  temp = makeTempDir("tt-plugin-lenient-");
  const file = path.join(temp.dir, "extensions_config.json");
  fs.writeFileSync(file, JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
  manager = new PluginManager({ pluginsDir: path.join(temp.dir, "plugins"), store: new ExtensionsStore(file), env: {}, watch: false });
});
afterEach(() => {
  manager.close();
  temp.cleanup();
});

const installedNames = (): string[] => fs.readdirSync(path.join(temp.dir, "plugins", "installed")).sort();

describe("installing public plugins as Claude Code loads them", needs("corpus"), () => {
  it("an agent whose one-line description holds ': ' inside <example> text: read line by line, with a warning", async () => {
    const root = copyFromCorpus("knowledge-work-plugins/partner-built/brand-voice", path.join(temp.dir, "brand-voice"));
    const agent = path.join(root, "agents", "content-generation.md");
    const text = fs.readFileSync(agent, "utf8").replace(/^description: >\n(?: {2}.*\n)+/m, 'description: Use this agent for long-form content. <example>Context: a launch. user: "Write the post" assistant: "I will use content-generation"</example>\n');
    fs.writeFileSync(agent, text);

    await expect(manager.installPath(root, { strict: true })).rejects.toMatchObject({ code: "INVALID_PLUGIN", message: expect.stringContaining("agents/content-generation.md:3: invalid YAML") });
    const result = await manager.installPath(root);
    const expected = { severity: "warning", lenient: true, file: "agents/content-generation.md", line: 3, message: expect.stringMatching(/^invalid YAML in frontmatter: .*read line by line as key: value/) };
    expect(result.warnings).toEqual([expected]);
    expect(result.agents.find((a) => a.name === "content-generation")).toMatchObject({ description: expect.stringContaining('user: "Write the post"') });
    expect(result.agents).toHaveLength(5);
    expect((await manager.get("brand-voice")).problems).toEqual([expected]);
  });

  it("a marketplace whose source is the repository root ('./') with AGENTS.md -> CLAUDE.md and a skills path naming one skill", async () => {
    const repository = anthropicSkillsRepository(path.join(temp.dir, "anthropic-skills"));
    fs.writeFileSync(path.join(repository, "CLAUDE.md"), "Guidance for agents.\n");
    fs.symlinkSync("CLAUDE.md", path.join(repository, "AGENTS.md"));
    fs.symlinkSync("../skills", path.join(repository, ".claude-plugin", "skills-link"));

    await expect(manager.installFromMarketplace(repository, "claude-api", { strict: true })).rejects.toMatchObject({ code: "INVALID_PLUGIN" });
    const result = await manager.installFromMarketplace(repository, "claude-api");
    expect(result.skills.map((s) => s.name)).toEqual(["claude-api"]);
    expect(result.warnings.map((w) => [w.file, w.lenient, w.message.replace(/\d+$/, "N")])).toEqual([
      ["AGENTS.md", true, "is a symbolic link to CLAUDE.md; installed as a copy of it"],
      [".claude-plugin/skills-link", true, "is a symbolic link to skills; installed as a copy of it"],
      [".claude-plugin/plugin.json", true, "'skills' path ./skills/claude-api is one skill folder, not a folder of skill folders (<name>/SKILL.md); it is read as that one skill"],
      ["skills/claude-api/SKILL.md", true, "description must be at most 1024 characters, got N"],
    ]);
    const root = path.join(temp.dir, "plugins", "installed", "claude-api");
    expect(fs.lstatSync(path.join(root, "AGENTS.md")).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(root, "AGENTS.md"), "utf8")).toBe("Guidance for agents.\n");
    const detail = await manager.get("claude-api");
    expect(detail).toMatchObject({ state: "enabled", skills: [{ name: "claude-api", containerPath: "/mnt/skills/plugins/claude-api/skills/claude-api/SKILL.md" }] });
    // GET keeps what the installed tree still shows (the copied links are plain files now).
    expect(detail.problems.map((p) => p.file)).toEqual([".claude-plugin/plugin.json", "skills/claude-api/SKILL.md"]);
    const [source] = await manager.skillSources();
    expect(source).toMatchObject({ root: path.join(root, "skills", "claude-api"), single: true });
  });

  it("still refuses a link that leaves the tree, and one that loops", async () => {
    const repository = anthropicSkillsRepository(path.join(temp.dir, "anthropic-skills"));
    fs.symlinkSync("/etc/passwd", path.join(repository, "skills", "claude-api", "passwd"));
    await expect(manager.installFromMarketplace(repository, "claude-api")).rejects.toMatchObject({ code: "ARCHIVE_SYMLINK", message: expect.stringContaining("leading outside the folder") });
    fs.rmSync(path.join(repository, "skills", "claude-api", "passwd"));
    fs.symlinkSync("..", path.join(repository, "skills", "claude-api", "up"));
    await expect(manager.installFromMarketplace(repository, "claude-api")).rejects.toMatchObject({ code: "ARCHIVE_SYMLINK", message: expect.stringContaining("a loop") });
    expect(fs.existsSync(path.join(temp.dir, "plugins", "installed")) ? installedNames() : []).toEqual([]);
  });
});
