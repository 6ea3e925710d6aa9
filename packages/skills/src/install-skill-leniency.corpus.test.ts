import fs from "node:fs";
import path from "node:path";
import { corpusDir, makeTempDir, needs } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installSkill } from "./install-skill.js";
import { validateSkillPackage } from "./validate-skill-package.js";

// Each class of refusal the issue found on public skills, reproduced from a copy of a corpus skill:
// installed with warnings by default, refused by strict=true and by `skills validate`.
let temp: { dir: string; cleanup: () => void };
let customRoot: string;
beforeEach(() => {
  temp = makeTempDir("tt-skill-lenient-");
  customRoot = path.join(temp.dir, "custom");
});
afterEach(() => temp.cleanup());

/** A copy of a corpus skill folder under `name`, with SKILL.md changed by `edit`. */
function copyOf(relative: string, name: string, edit: (text: string) => string = (text) => text): string {
  const target = path.join(temp.dir, "sources", name);
  fs.cpSync(path.join(corpusDir(), relative), target, { recursive: true });
  const file = path.join(target, "SKILL.md");
  fs.writeFileSync(file, edit(fs.readFileSync(file, "utf8")));
  return target;
}

async function refusedStrictly(folder: string, problem: RegExp): Promise<void> {
  const error = await installSkill({ customRoot, source: { kind: "path", path: folder }, strict: true }).catch((caught: unknown) => caught);
  expect(error).toMatchObject({ code: "INVALID_SKILL", details: { problems: expect.arrayContaining([expect.stringMatching(problem)]) } });
  const validated = await validateSkillPackage({ kind: "path", path: folder });
  expect(validated.problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
}

describe("installing standalone skills as Claude Code loads them", needs("corpus"), () => {
  it("a description longer than 1,024 characters: Anthropic's own claude-api skill", async () => {
    const folder = copyOf("anthropic-skills/claude-api", "claude-api");
    await refusedStrictly(folder, /description must be at most 1024 characters/);
    const skill = await installSkill({ customRoot, source: { kind: "path", path: folder } });
    expect(skill).toMatchObject({ identity: "custom:claude-api", name: "claude-api" });
    expect(skill.description.length).toBeGreaterThan(1024);
    expect(skill.warnings).toEqual([expect.stringMatching(/^description must be at most 1024 characters, got \d+$/)]);
    expect(fs.existsSync(path.join(customRoot, "claude-api", "SKILL.md"))).toBe(true);
  });

  it("a name that differs from its folder's: installed under the name, with a warning", async () => {
    const folder = copyOf("knowledge-work-plugins/partner-built/zoom-plugin/skills/cobrowse-sdk", "cobrowse-sdk");
    await refusedStrictly(folder, /name "zoom-cobrowse-sdk" must equal its folder's name "cobrowse-sdk"/);
    const skill = await installSkill({ customRoot, source: { kind: "path", path: folder } });
    expect(skill.identity).toBe("custom:zoom-cobrowse-sdk");
    expect(skill.warnings).toContain('name "zoom-cobrowse-sdk" must equal its folder\'s name "cobrowse-sdk"');
    expect(fs.readdirSync(customRoot).filter((name) => !name.startsWith("."))).toEqual(["zoom-cobrowse-sdk"]);
  });

  it("'<' or '>' in a description", async () => {
    const folder = copyOf("anthropic-skills/brand-guidelines", "brand-guidelines", (text) => text.replace(/^description: (.*)$/m, "description: $1 Use for <brand> reviews."));
    await refusedStrictly(folder, /description must not contain '<' or '>'/);
    const skill = await installSkill({ customRoot, source: { kind: "path", path: folder } });
    expect(skill.description).toContain("<brand>");
    expect(skill.warnings).toEqual(["description must not contain '<' or '>'"]);
  });

  it("frontmatter a strict YAML parser refuses: an unquoted ': ' in a one-line description", async () => {
    const folder = copyOf("anthropic-skills/internal-comms", "internal-comms", (text) =>
      text.replace(/^description: (.*)$/m, 'description: Internal comms. <example>Context: weekly update. user: "Write it" assistant: "Done"</example>'),
    );
    await refusedStrictly(folder, /invalid YAML in frontmatter/);
    const skill = await installSkill({ customRoot, source: { kind: "path", path: folder } });
    expect(skill.description).toBe('Internal comms. <example>Context: weekly update. user: "Write it" assistant: "Done"</example>');
    expect(skill.warnings).toEqual([expect.stringMatching(/^SKILL\.md \(line 3, column \d+\): invalid YAML in frontmatter: .*; read line by line as key: value/), "description must not contain '<' or '>'"]);
  });

  it("still refuses what is unusable or unsafe: no description, a name no folder can have, a link", async () => {
    const none = copyOf("anthropic-skills/internal-comms", "no-description", (text) => text.replace(/^description: .*$/m, "").replace(/^---\n([\s\S]*?)\n---\n[\s\S]*$/, "---\n$1\n---\n"));
    await expect(installSkill({ customRoot, source: { kind: "archive", data: Buffer.alloc(0) } })).rejects.toMatchObject({ code: "ARCHIVE_NOT_ZIP" });
    await expect(installSkill({ customRoot, source: { kind: "path", path: none } })).rejects.toMatchObject({ code: "INVALID_SKILL", details: { problems: ["description is required"] } });
    const linked = copyOf("anthropic-skills/internal-comms", "linked");
    fs.symlinkSync("/etc/passwd", path.join(linked, "passwd"));
    await expect(installSkill({ customRoot, source: { kind: "path", path: linked } })).rejects.toMatchObject({ code: "ARCHIVE_SYMLINK" });
    expect(fs.readdirSync(customRoot).filter((name) => !name.startsWith("."))).toEqual([]);
  });
});
