import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSkills } from "./load-skills.js";
import { resolveSkillPath } from "./resolve-skill-path.js";
import { defaultSkillSources, pluginSkillSource } from "./skill-sources.js";
import type { Skill } from "./skill-types.js";

let temp: { dir: string; cleanup: () => void };
let skills: Skill[];

beforeAll(async () => {
  temp = makeTempDir("tt-skills-path-");
  const skill = (name: string): string => `---\nname: ${name}\ndescription: ${name}\n---\n`;
  writeTree(temp.dir, {
    "skills/public/pdf/SKILL.md": skill("pdf"),
    "skills/public/pdf/references/forms.md": "forms",
    "skills/public/pdfx/SKILL.md": skill("pdfx"),
    "skills/public/off/SKILL.md": skill("off"),
    "skills/custom/suite/SKILL.md": skill("suite"),
    "skills/custom/suite/web/SKILL.md": skill("web"),
    "skills/custom/suite/web/guide.md": "web guide",
    "plugins/zoom/skills/sdk/SKILL.md": skill("sdk"),
    "secret.txt": "top secret",
  });
  fs.symlinkSync(path.join(temp.dir, "secret.txt"), path.join(temp.dir, "skills/public/pdf/leak.txt"));
  fs.symlinkSync(path.join(temp.dir, "skills/public/pdfx"), path.join(temp.dir, "skills/public/pdf/sibling"));
  fs.symlinkSync("references/forms.md", path.join(temp.dir, "skills/public/pdf/inside.md"));
  const sources = [...defaultSkillSources(path.join(temp.dir, "skills")), pluginSkillSource("zoom", path.join(temp.dir, "plugins/zoom/skills"))];
  ({ skills } = await loadSkills({ sources, settings: { skills: { off: { enabled: false } } } }));
});
afterAll(() => temp.cleanup());

async function refusal(virtualPath: string): Promise<string> {
  try {
    await resolveSkillPath(virtualPath, skills);
  } catch (error) {
    if (error instanceof ThinktankError) return error.code;
    throw error;
  }
  return "resolved";
}

describe("resolveSkillPath", () => {
  it("maps virtual paths of enabled skills to their real files", async () => {
    const resolved = await resolveSkillPath("/mnt/skills/public/pdf/SKILL.md", skills);
    expect(resolved.file).toBe(path.join(temp.dir, "skills/public/pdf/SKILL.md"));
    expect(resolved.skill.identity).toBe("public:pdf");
    expect((await resolveSkillPath("/mnt/skills/public/pdf//references/./forms.md", skills)).virtualPath).toBe("/mnt/skills/public/pdf/references/forms.md");
    expect((await resolveSkillPath("/mnt/skills/plugins/zoom/sdk/SKILL.md", skills)).skill.identity).toBe("plugin:zoom:sdk");
    expect((await resolveSkillPath("/mnt/skills/public/pdf", skills)).file).toBe(path.join(temp.dir, "skills/public/pdf"));
  });

  it("gives a nested skill's files to the nested skill", async () => {
    expect((await resolveSkillPath("/mnt/skills/custom/suite/web/guide.md", skills)).skill.identity).toBe("custom:web");
    expect((await resolveSkillPath("/mnt/skills/custom/suite/SKILL.md", skills)).skill.identity).toBe("custom:suite");
  });

  it("follows links that stay inside the skill's folder", async () => {
    expect((await resolveSkillPath("/mnt/skills/public/pdf/inside.md", skills)).file).toBe(path.join(temp.dir, "skills/public/pdf/references/forms.md"));
  });

  it("refuses '..', encoded traversal, links leading outside, NUL bytes and backslashes", async () => {
    expect(await refusal("/mnt/skills/public/pdf/../pdfx/SKILL.md")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/../../../../etc/passwd")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/%2e%2e/pdfx/SKILL.md")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/%2E%2E%2Fsecret")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/%252e%252e/x")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/leak.txt")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/sibling/SKILL.md")).toBe("PATH_TRAVERSAL");
    expect(await refusal("/mnt/skills/public/pdf/SKILL.md\u0000.png")).toBe("INVALID_PATH");
    expect(await refusal("/mnt/skills/public/pdf\\..\\pdfx")).toBe("INVALID_PATH");
  });

  it("refuses paths outside the container path, of unknown or disabled skills, and missing files", async () => {
    expect(await refusal("/etc/passwd")).toBe("INVALID_PATH");
    expect(await refusal("/mnt/skillsx/public/pdf/SKILL.md")).toBe("INVALID_PATH");
    expect(await refusal("public/pdf/SKILL.md")).toBe("INVALID_PATH");
    expect(await refusal("/mnt/skills/public/nope/SKILL.md")).toBe("SKILL_NOT_FOUND");
    expect(await refusal("/mnt/skills/public/SKILL.md")).toBe("SKILL_NOT_FOUND");
    expect(await refusal("/mnt/skills/public/off/SKILL.md")).toBe("SKILL_NOT_FOUND");
    expect(await refusal("/mnt/skills/public/pdf/missing.md")).toBe("NOT_FOUND");
  });
});
