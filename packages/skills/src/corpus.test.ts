import fs from "node:fs";
import path from "node:path";
import { corpusLocation, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { loadSkills } from "./load-skills.js";
import { pluginSkillSource } from "./skill-sources.js";
import type { Skill } from "./skill-types.js";

interface ExpectedSkill {
  readonly dir?: string;
  readonly path?: string;
  readonly name: string;
  readonly descriptionHasNewline: boolean;
  readonly descriptionLength: number;
  readonly frontmatterKeys: readonly string[];
  readonly license?: string | null;
}

interface Expected {
  readonly anthropicSkills: { readonly root: string; readonly skills: readonly ExpectedSkill[] };
  readonly knowledgeWorkPlugins: {
    readonly root: string;
    readonly plugins: readonly { readonly path: string; readonly name: string; readonly skillDetails: readonly ExpectedSkill[]; readonly nestedSkillFiles?: readonly ExpectedSkill[] }[];
  };
  readonly summary: { readonly kwpTopLevelSkills: number; readonly kwpNestedSkillFiles: number; readonly anthropicSkills: number };
}

/** Compares a loaded skill with expected.json: exact name, and the description's length (in characters) and line breaks. */
function expectMatches(skill: Skill | undefined, expected: ExpectedSkill, where: string): void {
  expect(skill, `${where}: not loaded`).toBeDefined();
  if (!skill) return;
  expect(skill.name, where).toBe(expected.name);
  expect([...skill.description].length, `${where}: description length`).toBe(expected.descriptionLength);
  expect(skill.description.includes("\n"), `${where}: description line breaks`).toBe(expected.descriptionHasNewline);
  expect(Object.keys(skill.frontmatter), `${where}: frontmatter keys`).toEqual(expected.frontmatterKeys);
  if (expected.license !== undefined) expect(skill.license ?? null, where).toBe(expected.license);
}

describe("the corpus", needs("corpus"), () => {
  const root = corpusLocation();
  const expected = (): Expected => JSON.parse(fs.readFileSync(path.join(root, "expected.json"), "utf8")) as Expected;

  it("loads every anthropic skill with the expected name and description", async () => {
    const { anthropicSkills } = expected();
    const source = { category: "public" as const, root: path.join(root, anthropicSkills.root), containerPrefix: "public" };
    const { skills, problems } = await loadSkills({ sources: [source] });
    expect(problems).toEqual([]);
    expect(skills).toHaveLength(anthropicSkills.skills.length);
    for (const entry of anthropicSkills.skills) {
      expectMatches(
        skills.find((skill) => skill.relativePath === entry.dir),
        entry,
        `anthropic-skills/${entry.dir}`,
      );
    }
    // claude-api's description is over 1,024 characters: loaded, with a warning.
    expect(skills.find((skill) => skill.name === "claude-api")?.warnings.join(" ")).toMatch(/at most 1024 characters/);
  });

  it("loads every knowledge-work-plugins skill, nested ones included, as plugin skills", async () => {
    const { knowledgeWorkPlugins, summary } = expected();
    let topLevel = 0;
    let nested = 0;
    for (const plugin of knowledgeWorkPlugins.plugins) {
      const folder = path.join(root, knowledgeWorkPlugins.root, plugin.path, "skills");
      const { skills, problems } = await loadSkills({ sources: [pluginSkillSource(plugin.name, folder)] });
      expect(problems, plugin.path).toEqual([]);
      for (const entry of plugin.skillDetails) {
        expectMatches(
          skills.find((skill) => skill.relativePath === entry.dir),
          entry,
          `${plugin.path}/skills/${entry.dir}`,
        );
        topLevel++;
      }
      for (const entry of plugin.nestedSkillFiles ?? []) {
        const relative = path.posix.dirname(entry.path ?? "");
        const skill = skills.find((candidate) => candidate.relativePath === relative);
        expectMatches(skill, entry, `${plugin.path}/skills/${entry.path}`);
        expect(skill?.containerPath).toBe(`/mnt/skills/plugins/${plugin.name}/${relative}/SKILL.md`);
        nested++;
      }
      for (const skill of skills) expect(skill.identity).toBe(`plugin:${plugin.name}:${skill.name}`);
    }
    expect(topLevel).toBe(summary.kwpTopLevelSkills);
    expect(nested).toBe(summary.kwpNestedSkillFiles);
  });

  it("reads comma-separated allowed-tools as a list", async () => {
    const folder = path.join(root, "knowledge-work-plugins", "small-business", "skills");
    const { skills } = await loadSkills({ sources: [pluginSkillSource("small-business", folder)] });
    const withTools = skills.filter((skill) => typeof skill.frontmatter["allowed-tools"] === "string" && String(skill.frontmatter["allowed-tools"]).includes(","));
    expect(withTools.length).toBeGreaterThan(0);
    for (const skill of withTools) {
      const raw = String(skill.frontmatter["allowed-tools"]);
      expect(skill.allowedTools).toEqual(raw.split(",").map((tool) => tool.trim()));
    }
  });
});
