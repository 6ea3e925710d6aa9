import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillSourceIndex } from "./skill-source-index.js";

const skill = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n`;

let temp: { dir: string; cleanup: () => void };
let index: SkillSourceIndex;
beforeEach(() => {
  temp = makeTempDir("tt-skills-index-");
  writeTree(temp.dir, { "pdf/SKILL.md": skill("pdf"), "docx/SKILL.md": skill("docx") });
  index = new SkillSourceIndex({ source: { category: "custom", root: temp.dir, containerPrefix: "custom" } });
});
afterEach(() => {
  index.close();
  temp.cleanup();
});

const descriptions = (): Record<string, string> => Object.fromEntries(index.skills.map((s) => [s.name, s.description]));

describe("SkillSourceIndex", () => {
  it("re-lists the source folder in 'roots' mode: new, removed and replaced skill folders, even before any watch event arrives", async () => {
    expect(await index.refresh("full")).toBe(true);
    expect(await index.refresh("changes")).toBe(false);
    // All synchronous: no watch event can be delivered before the refreshes below.
    fs.renameSync(path.join(temp.dir, "pdf"), path.join(temp.dir, ".old-pdf"));
    writeTree(temp.dir, { "pdf/SKILL.md": skill("pdf", "Replaced."), "fresh/SKILL.md": skill("fresh") });
    fs.rmSync(path.join(temp.dir, "docx"), { recursive: true });
    expect(await index.refresh("changes")).toBe(false);
    expect(await index.refresh("roots")).toBe(true);
    expect(descriptions()).toEqual({ fresh: "Does fresh things.", pdf: "Replaced." });
  });

  it("re-reads only SKILL.md files whose stat changed on a full walk", async () => {
    await index.refresh("full");
    const docx = index.skills.find((s) => s.name === "docx");
    fs.writeFileSync(path.join(temp.dir, "pdf/SKILL.md"), skill("pdf", "Edited."));
    expect(await index.refresh("full")).toBe(true);
    expect(descriptions().pdf).toBe("Edited.");
    expect(index.skills.find((s) => s.name === "docx")).toBe(docx);
    expect(await index.refresh("full")).toBe(false);
  });

  it("stops watching and forgets everything when closed", async () => {
    await index.refresh("full");
    index.close();
    expect(index.skills).toEqual([]);
    expect(await index.refresh("full")).toBe(false);
  });

  it("reads a single-skill source's own SKILL.md as its one skill (a plugin's skills path naming one skill folder)", async () => {
    writeTree(temp.dir, { "one/SKILL.md": skill("one"), "one/nested/SKILL.md": skill("inner") });
    const single = new SkillSourceIndex({ source: { category: "plugin:p", root: path.join(temp.dir, "one"), containerPrefix: "plugins/p/one", single: true }, watch: false });
    await single.refresh("full");
    expect(single.skills.map((s) => [s.name, s.relativePath, s.containerPath])).toEqual([
      ["one", "", "/mnt/skills/plugins/p/one/SKILL.md"],
      ["inner", "nested", "/mnt/skills/plugins/p/one/nested/SKILL.md"],
    ]);
    expect(single.problems).toEqual([]);
    single.close();
  });
});
