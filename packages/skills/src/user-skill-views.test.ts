import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultSkillSources, pluginSkillSource, userSkillsFolder } from "./skill-sources.js";
import type { SkillProblem, SkillSettingsDocument } from "./skill-types.js";
import { SkillsSnapshotter } from "./skills-snapshotter.js";
import { UserSkillViews } from "./user-skill-views.js";

const skillText = (name: string): string => `---\nname: ${name}\ndescription: Does ${name} things.\n---\n`;

/** A settings reader over an object the test changes (a new revision on each change, as the store bumps it). */
class Settings {
  revision = 1;
  constructor(public document: SkillSettingsDocument) {}
  set(document: SkillSettingsDocument): void {
    this.document = document;
    this.revision += 1;
  }
  async read() {
    return { document: this.document, revision: this.revision, etag: `"${this.revision}"` };
  }
}

let temp: { dir: string; cleanup: () => void };
let snapshotter: SkillsSnapshotter;
let views: UserSkillViews;
let settings: Settings;
const problems: SkillProblem[] = [];

beforeEach(() => {
  temp = makeTempDir("tt-user-views-");
  writeTree(temp.dir, {
    "skills/public/pdf/SKILL.md": skillText("pdf"),
    "plugin-off/skills/prep/SKILL.md": skillText("prep"),
  });
  const root = path.join(temp.dir, "skills");
  settings = new Settings({ skills: {}, users: { usr_a: { skills: { "plugin:sales:prep": { enabled: true }, "public:pdf": { enabled: "yes" } } } } });
  const sources = [...defaultSkillSources(root), { ...pluginSkillSource("sales", path.join(temp.dir, "plugin-off/skills")), disabledReason: "the plugin 'sales' is disabled" }];
  snapshotter = new SkillsSnapshotter({ sources, settings });
  problems.length = 0;
  views = new UserSkillViews({ snapshotter, settings, skillsRoot: root, maxUsers: 2, onProblem: (problem) => problems.push(problem) });
});
afterEach(() => {
  views.close();
  snapshotter.close();
  temp.cleanup();
});

describe("UserSkillViews", () => {
  it("a skill switched off as a whole (its plugin is disabled) stays off whatever the user chose; a malformed choice is a problem, ignored", async () => {
    const view = await views.viewFor("usr_a");
    expect(view.skills.find((skill) => skill.identity === "plugin:sales:prep")).toMatchObject({ enabled: false, disabledReason: "the plugin 'sales' is disabled" });
    expect(view.skills.find((skill) => skill.identity === "public:pdf")).toMatchObject({ enabled: true });
    expect(problems.map((problem) => problem.message)).toEqual(['extensions_config.json users["usr_a"].skills["public:pdf"] must be { "enabled": true | false }; ignored']);
    expect(view.problems.map((problem) => problem.identity)).toContain("public:pdf");
  });

  it("keeps the most recent users' views; a dropped one is rebuilt when asked again, from its folder", async () => {
    writeTree(userSkillsFolder(path.join(temp.dir, "skills"), "usr_c"), { "mine/SKILL.md": skillText("mine") });
    const first = await views.viewFor("usr_c");
    expect(first.skills.map((skill) => skill.identity)).toContain("user:mine");
    expect(await views.viewFor("usr_c")).toBe(first);
    await views.viewFor("usr_d");
    await views.viewFor("usr_e");
    const again = await views.viewFor("usr_c");
    expect(again).not.toBe(first);
    expect(again.skills.map((skill) => skill.identity)).toEqual(first.skills.map((skill) => skill.identity));
  });

  it("sees a skill added to or removed from the user's folder on the next store revision", async () => {
    const folder = userSkillsFolder(path.join(temp.dir, "skills"), "usr_f");
    expect(await views.viewFor("usr_f")).toBe(await snapshotter.snapshot());
    writeTree(folder, { "late/SKILL.md": skillText("late") });
    settings.set({ ...settings.document });
    expect((await views.viewFor("usr_f")).skills.map((skill) => skill.identity)).toContain("user:late");
    fs.rmSync(path.join(folder, "late"), { recursive: true });
    settings.set({ ...settings.document });
    expect(await views.viewFor("usr_f")).toBe(await snapshotter.snapshot());
  });
});
