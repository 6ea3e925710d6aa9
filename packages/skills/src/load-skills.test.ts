import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills } from "./load-skills.js";
import { defaultSkillSources } from "./skill-sources.js";

const skill = (name: string, description = `Does ${name} things.`, extra = ""): string => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n`;

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-skills-load-");
});
afterEach(() => temp.cleanup());

describe("loadSkills", () => {
  it("finds skills in public and custom, nested ones included, and skips dot-folders", async () => {
    writeTree(temp.dir, {
      "public/pdf/SKILL.md": skill("pdf"),
      "public/pdf/references/forms.md": "forms",
      "public/suite/SKILL.md": skill("suite"),
      "public/suite/web/SKILL.md": skill("web"),
      "public/group/deep/inner/SKILL.md": skill("inner"),
      "public/.hidden/SKILL.md": skill("hidden"),
      "public/pdf/.git/SKILL.md": skill("git"),
      "public/node_modules/dep/SKILL.md": skill("dep"),
      "custom/notes/SKILL.md": skill("notes"),
      "custom/.staging-1/x/SKILL.md": skill("x"),
    });
    const { skills, problems } = await loadSkills({ sources: defaultSkillSources(temp.dir) });
    expect(problems).toEqual([]);
    expect(skills.map((s) => [s.identity, s.relativePath, s.containerPath])).toEqual([
      ["public:inner", "group/deep/inner", "/mnt/skills/public/group/deep/inner/SKILL.md"],
      ["public:pdf", "pdf", "/mnt/skills/public/pdf/SKILL.md"],
      ["public:suite", "suite", "/mnt/skills/public/suite/SKILL.md"],
      ["public:web", "suite/web", "/mnt/skills/public/suite/web/SKILL.md"],
      ["custom:notes", "notes", "/mnt/skills/custom/notes/SKILL.md"],
    ]);
    const pdf = skills.find((s) => s.name === "pdf");
    expect(pdf?.dir).toBe(path.join(temp.dir, "public", "pdf"));
    expect(pdf?.file).toBe(path.join(temp.dir, "public", "pdf", "SKILL.md"));
    expect(pdf?.enabled).toBe(true);
  });

  it("loads with warnings when name and description are usable, and skips with a reason otherwise", async () => {
    writeTree(temp.dir, {
      "public/Folder/SKILL.md": skill("Other_Name"),
      "public/no-name/SKILL.md": "---\ndescription: Has no name.\n---\n",
      "public/bad-yaml/SKILL.md": "---\nname: bad-yaml\ndescription: [unclosed\n---\n",
      "public/no-description/SKILL.md": "---\nname: no-description\n---\n",
      "public/no-frontmatter/SKILL.md": "# just markdown\n",
      "public/unclosed/SKILL.md": "---\nname: unclosed\n",
      "public/SKILL.md": skill("top"),
    });
    const { skills, problems } = await loadSkills({ sources: defaultSkillSources(temp.dir) });
    expect(skills.map((s) => s.identity)).toEqual(["public:Other_Name", "public:bad-yaml", "public:no-name"]); // code-unit order: capitals first
    // YAML a strict parser refuses is read line by line, as Claude Code reads it.
    expect(skills.find((s) => s.name === "bad-yaml")).toMatchObject({ description: "[unclosed", warnings: [expect.stringMatching(/^SKILL\.md \(line 3, column \d+\): invalid YAML in frontmatter: .*read line by line as key: value/)] });
    expect(skills.find((s) => s.name === "Other_Name")?.warnings).toEqual([
      'name "Other_Name" may only contain lowercase letters a-z, digits and hyphens',
      'name "Other_Name" must equal its folder\'s name "Folder"',
    ]);
    expect(skills.find((s) => s.name === "no-name")?.warnings).toEqual(["name is required"]);
    const byFile = Object.fromEntries(problems.map((p) => [path.relative(temp.dir, p.file ?? ""), p]));
    expect(Object.keys(byFile).sort()).toEqual([
      "public/SKILL.md",
      "public/no-description/SKILL.md",
      "public/no-frontmatter/SKILL.md",
      "public/unclosed/SKILL.md",
    ]);
    expect(byFile["public/no-description/SKILL.md"]).toMatchObject({ reason: "missing-description" });
    expect(byFile["public/no-description/SKILL.md"]?.message).toMatch(/description is required/);
    expect(byFile["public/no-frontmatter/SKILL.md"]).toMatchObject({ reason: "missing-description" });
    expect(byFile["public/unclosed/SKILL.md"]).toMatchObject({ reason: "invalid-frontmatter" });
    expect(byFile["public/SKILL.md"]).toMatchObject({ reason: "misplaced" });
  });

  it("reports duplicate identities instead of merging them, and keeps the same name in two categories apart", async () => {
    writeTree(temp.dir, {
      "custom/a/pdf/SKILL.md": skill("pdf", "First copy."),
      "custom/b/pdf/SKILL.md": skill("pdf", "Second copy."),
      "public/pdf/SKILL.md": skill("pdf", "The public one."),
    });
    const { skills, problems } = await loadSkills({ sources: defaultSkillSources(temp.dir) });
    expect(skills.map((s) => [s.identity, s.description])).toEqual([
      ["public:pdf", "The public one."],
      ["custom:pdf", "First copy."],
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ reason: "duplicate", identity: "custom:pdf", file: path.join(temp.dir, "custom/b/pdf/SKILL.md") });
  });

  it("does not follow links, and says so", async () => {
    writeTree(temp.dir, { "elsewhere/linked/SKILL.md": skill("linked"), "elsewhere/real.md": skill("alias") });
    fs.mkdirSync(path.join(temp.dir, "public", "alias"), { recursive: true });
    fs.symlinkSync(path.join(temp.dir, "elsewhere", "linked"), path.join(temp.dir, "public", "linked"));
    fs.symlinkSync(path.join(temp.dir, "elsewhere", "real.md"), path.join(temp.dir, "public", "alias", "SKILL.md"));
    const { skills, problems } = await loadSkills({ sources: defaultSkillSources(temp.dir) });
    expect(skills).toEqual([]);
    expect(problems.map((p) => [p.reason, path.relative(temp.dir, p.file ?? "")])).toEqual([
      ["symlink", "public/alias/SKILL.md"],
      ["symlink", "public/linked"],
    ]);
  });

  it("applies settings by identity and by unambiguous bare name; an ambiguous bare name is reported", async () => {
    writeTree(temp.dir, {
      "public/pdf/SKILL.md": skill("pdf"),
      "custom/pdf/SKILL.md": skill("pdf"),
      "public/docx/SKILL.md": skill("docx"),
      "public/xlsx/SKILL.md": skill("xlsx"),
    });
    const settings = {
      skills: {
        docx: { enabled: false },
        "public:xlsx": { enabled: false },
        xlsx: { enabled: true },
        pdf: { enabled: false },
        "custom:pdf": { enabled: true },
        broken: "yes",
      },
    };
    const { skills, problems } = await loadSkills({ sources: defaultSkillSources(temp.dir), settings });
    expect(Object.fromEntries(skills.map((s) => [s.identity, s.enabled]))).toEqual({
      "public:docx": false,
      "public:pdf": true,
      "public:xlsx": false,
      "custom:pdf": true,
    });
    expect(problems.map((p) => [p.reason, p.identity])).toEqual([
      ["ambiguous-setting", "broken"],
      ["ambiguous-setting", "pdf"],
    ]);
  });

  it("treats a missing source folder as empty", async () => {
    const { skills, problems } = await loadSkills({ sources: defaultSkillSources(path.join(temp.dir, "nowhere")) });
    expect(skills).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe("loadSkills trust", () => {
  it("trusts public skills always, custom and plugin skills only when their setting or their plugin's says so", async () => {
    writeTree(temp.dir, {
      "public/pdf/SKILL.md": skill("pdf"),
      "custom/notes/SKILL.md": skill("notes"),
      "custom/vetted/SKILL.md": skill("vetted"),
      "plugins/sales/skills/prep/SKILL.md": skill("prep"),
      "plugins/sales/skills/risky/SKILL.md": skill("risky"),
      "plugins/legal/skills/review/SKILL.md": skill("review"),
    });
    const plugin = (name: string, trust: { trusted?: boolean; scriptsApproved?: boolean } = {}) => ({
      category: `plugin:${name}` as const,
      root: path.join(temp.dir, "plugins", name, "skills"),
      containerPrefix: `plugins/${name}`,
      ...trust,
    });
    const settings = {
      skills: {
        "public:pdf": { trusted: false }, // ignored, and said so
        vetted: { enabled: true, trusted: true, scripts_approved: true }, // a bare name
        "plugin:sales:risky": { trusted: false, scripts_approved: false }, // the skill's own setting wins over its plugin's
        notes: { trusted: "yes" }, // malformed: reported, ignored
      },
    };
    const { skills, problems } = await loadSkills({
      sources: [...defaultSkillSources(temp.dir), plugin("sales", { trusted: true, scriptsApproved: true }), plugin("legal")],
      settings,
    });
    expect(Object.fromEntries(skills.map((s) => [s.identity, [s.enabled, s.trusted, s.scriptsApproved]]))).toEqual({
      "public:pdf": [true, true, false],
      "custom:notes": [true, false, false],
      "custom:vetted": [true, true, true],
      "plugin:sales:prep": [true, true, true],
      "plugin:sales:risky": [true, false, false],
      "plugin:legal:review": [true, false, false],
    });
    expect(problems.map((p) => [p.reason, p.identity, p.message])).toEqual([
      ["ambiguous-setting", "notes", 'extensions_config.json skills["notes"].trusted must be true or false; ignored'],
      ["ambiguous-setting", "public:pdf", expect.stringContaining("public skills are the project's own and always trusted")],
    ]);
  });

  it("applies trust through an ambiguous bare name to neither skill", async () => {
    writeTree(temp.dir, { "public/pdf/SKILL.md": skill("pdf"), "custom/pdf/SKILL.md": skill("pdf") });
    const { skills } = await loadSkills({ sources: defaultSkillSources(temp.dir), settings: { skills: { pdf: { trusted: true } } } });
    expect(skills.map((s) => [s.identity, s.trusted])).toEqual([
      ["public:pdf", true],
      ["custom:pdf", false],
    ]);
  });
});
