import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ThinktankError, buildZip, defaultArchiveLimits } from "@thinktank/core";
import type { ZipEntrySpec } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkSkillPackage, findPackageRoot } from "./check-skill-package.js";
import { installSkill } from "./install-skill.js";
import type { InstallSkillOptions } from "./install-skill.js";

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const mebibyte = 1024 * 1024;

let temp: { dir: string; cleanup: () => void };
let customRoot: string;
beforeEach(() => {
  temp = makeTempDir("tt-skills-install-");
  customRoot = path.join(temp.dir, "skills", "custom");
  writeTree(customRoot, { "existing/SKILL.md": skillText("existing"), "existing/notes.md": "v1", ".gitkeep": "" });
});
afterEach(() => temp.cleanup());

/** Every path under the custom folder with its content: "unchanged" means exactly this. */
function tree(root = customRoot): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(root, full);
      if (entry.isDirectory()) {
        result[`${relative}/`] = "";
        walk(full);
      } else result[relative] = fs.readFileSync(full, "utf8");
    }
  };
  walk(root);
  return result;
}

function install(source: InstallSkillOptions["source"], options: Partial<InstallSkillOptions> = {}) {
  return installSkill({ customRoot, source, ...options });
}

async function refusal(promise: Promise<unknown>): Promise<ThinktankError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ThinktankError) return error;
    throw error;
  }
  throw new Error("expected the install to be refused");
}

describe("installSkill", () => {
  it("installs an archive with a wrapper folder, leaving out __MACOSX and dotfiles", async () => {
    const data = buildZip([
      { name: "pdf-tools/SKILL.md", data: skillText("pdf-tools") },
      { name: "pdf-tools/scripts/fill.py", data: "print('hi')\n", unixMode: 0o100755 },
      { name: "pdf-tools/.DS_Store", data: "junk" },
      { name: "__MACOSX/pdf-tools/._SKILL.md", data: "apple" },
      { name: ".hidden", data: "x" },
    ]);
    const skill = await install({ kind: "archive", data });
    expect(skill).toMatchObject({ identity: "custom:pdf-tools", name: "pdf-tools", category: "custom", containerPath: "/mnt/skills/custom/pdf-tools/SKILL.md" });
    expect(skill.dir).toBe(path.join(customRoot, "pdf-tools"));
    expect(Object.keys(tree(path.join(customRoot, "pdf-tools"))).sort()).toEqual(["SKILL.md", "scripts/", "scripts/fill.py"]);
    expect(fs.statSync(path.join(customRoot, "pdf-tools/scripts/fill.py")).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(customRoot).filter((name) => name.startsWith(".staging"))).toEqual([]);
  });

  it("installs an archive without a wrapper folder under the skill's name", async () => {
    const skill = await install({ kind: "archive", data: buildZip([{ name: "SKILL.md", data: skillText("flat") }, { name: "ref.md", data: "r" }]) });
    expect(skill.dir).toBe(path.join(customRoot, "flat"));
    expect(fs.readFileSync(path.join(customRoot, "flat", "ref.md"), "utf8")).toBe("r");
  });

  it("installs from a folder or an archive on this machine", async () => {
    writeTree(temp.dir, { "src/from-folder/SKILL.md": skillText("from-folder"), "src/from-folder/.git/config": "x" });
    expect((await install({ kind: "path", path: path.join(temp.dir, "src/from-folder") })).name).toBe("from-folder");
    expect(fs.existsSync(path.join(customRoot, "from-folder/.git"))).toBe(false);
    fs.writeFileSync(path.join(temp.dir, "packed.skill"), buildZip([{ name: "packed/SKILL.md", data: skillText("packed") }]));
    expect((await install({ kind: "path", path: path.join(temp.dir, "packed.skill") })).name).toBe("packed");
  });

  it("strict: rejects an invalid skill listing every reason, and leaves nothing behind", async () => {
    const before = tree();
    const data = buildZip([{ name: "wrapper/SKILL.md", data: "---\nname: Bad--Name\ndescription: uses <tags>\ncompatibility: 5\n---\n" }]);
    const error = await refusal(install({ kind: "archive", data }, { strict: true }));
    expect(error.code).toBe("INVALID_SKILL");
    expect(error.details?.problems).toEqual([
      'name "Bad--Name" may only contain lowercase letters a-z, digits and hyphens',
      'name "Bad--Name" must not contain two hyphens in a row',
      'name "Bad--Name" must equal its folder\'s name "wrapper"',
      "description must not contain '<' or '>'",
      "compatibility must be a string, got number 5",
    ]);
    expect(tree()).toEqual(before);
  });

  it("rejects packages without SKILL.md or a description, and (strict) with broken YAML or a folder name that differs", async () => {
    const before = tree();
    expect((await refusal(install({ kind: "archive", data: buildZip([{ name: "a/README.md", data: "x" }, { name: "b/SKILL.md", data: "x" }]) }))).code).toBe("INVALID_SKILL");
    const undescribed = await refusal(install({ kind: "archive", data: buildZip([{ name: "SKILL.md", data: "---\nname: [oops\n---\n" }]) }));
    expect(undescribed.details?.problems).toEqual(["description is required"]);
    const broken = await refusal(install({ kind: "archive", data: buildZip([{ name: "SKILL.md", data: "---\nname: [oops\n---\n" }]) }, { strict: true }));
    expect(broken.code).toBe("INVALID_SKILL");
    expect(String(broken.details?.problems)).toMatch(/line 2/);
    writeTree(temp.dir, { "src/folder-name/SKILL.md": skillText("other-name") });
    const mismatch = await refusal(install({ kind: "path", path: path.join(temp.dir, "src/folder-name") }, { strict: true }));
    expect(mismatch.details?.problems).toEqual(['name "other-name" must equal its folder\'s name "folder-name"']);
    expect((await refusal(install({ kind: "path", path: path.join(temp.dir, "missing") }))).code).toBe("NOT_FOUND");
    expect(tree()).toEqual(before);
  });

  it("installs a SKILL.md without frontmatter, or without a description, from its body's first paragraph (as Claude Code loads it); strict refuses", async () => {
    writeTree(temp.dir, { "src/bare-notes/SKILL.md": "# Bare Notes\n\nKeeps bare notes\nfor the team.\n\n## Use\n", "src/half/SKILL.md": "---\nname: half\n---\n# Half\nHalf a skill.\n" });
    const bare = await install({ kind: "path", path: path.join(temp.dir, "src/bare-notes") });
    expect(bare).toMatchObject({ name: "bare-notes", description: "Keeps bare notes for the team." });
    expect(bare.warnings).toEqual([expect.stringMatching(/^SKILL\.md has no YAML frontmatter: the name is the folder's/)]);
    const half = await install({ kind: "path", path: path.join(temp.dir, "src/half") });
    expect(half).toMatchObject({ name: "half", description: "Half a skill.", warnings: ["description is required: the body's first paragraph is used, as Claude Code does"] });
    const strict = await refusal(install({ kind: "path", path: path.join(temp.dir, "src/bare-notes") }, { strict: true, overwrite: true }));
    expect(strict.details?.problems).toEqual(["SKILL.md has no YAML frontmatter: it must start with a '---' block holding name and description"]);
  });

  it("refuses a name already installed (409) unless overwrite, which swaps the new version in", async () => {
    const before = tree();
    const v2 = buildZip([{ name: "existing/SKILL.md", data: skillText("existing", "Version two.") }, { name: "existing/new.md", data: "v2" }]);
    expect((await refusal(install({ kind: "archive", data: v2 }))).code).toBe("SKILL_NAME_CONFLICT");
    expect(tree()).toEqual(before);
    const skill = await install({ kind: "archive", data: v2 }, { overwrite: true });
    expect(skill.description).toBe("Version two.");
    expect(Object.keys(tree(path.join(customRoot, "existing"))).sort()).toEqual(["SKILL.md", "new.md"]);
    expect(fs.readdirSync(customRoot).sort()).toEqual([".gitkeep", "existing"]);
  });

  it("keeps the old version when the replacement is invalid", async () => {
    const before = tree();
    const bad = buildZip([{ name: "existing/SKILL.md", data: "---\nname: existing\n---\n" }]);
    expect((await refusal(install({ kind: "archive", data: bad }, { overwrite: true }))).code).toBe("INVALID_SKILL");
    expect(tree()).toEqual(before);
  });

  it("refuses a name another custom skill already uses elsewhere", async () => {
    const data = buildZip([{ name: "dup/SKILL.md", data: skillText("dup") }]);
    const error = await refusal(install({ kind: "archive", data }, { identityTaken: (name) => (name === "dup" ? "custom:dup is already defined" : undefined) }));
    expect(error.code).toBe("SKILL_NAME_CONFLICT");
  });

  it("removes staging folders left by a crash long ago", async () => {
    const stale = path.join(customRoot, ".staging-crashed");
    fs.mkdirSync(stale);
    await install({ kind: "archive", data: buildZip([{ name: "SKILL.md", data: skillText("fresh") }]) }, { now: () => Date.now() + 2 * 3_600_000 });
    expect(fs.existsSync(stale)).toBe(false);
  });

  describe("hostile archives: each refused with its own code, skills/custom unchanged", () => {
    const valid: ZipEntrySpec = { name: "evil/SKILL.md", data: skillText("evil") };
    const cases: [string, ZipEntrySpec[] | Buffer, string, Partial<typeof defaultArchiveLimits>?][] = [
      ["path traversal", [valid, { name: "evil/../../escaped.txt", data: "x" }], "ARCHIVE_PATH_TRAVERSAL"],
      ["absolute path", [valid, { name: "/tmp/escaped.txt", data: "x" }], "ARCHIVE_ABSOLUTE_PATH"],
      ["symlink entry", [valid, { name: "evil/passwd", data: "/etc/passwd", unixMode: 0o120777 }], "ARCHIVE_SYMLINK"],
      ["FIFO entry", [valid, { name: "evil/pipe", unixMode: 0o010644 }], "ARCHIVE_SPECIAL_FILE"],
      ["device entry", [valid, { name: "evil/disk", unixMode: 0o060660 }], "ARCHIVE_SPECIAL_FILE"],
      ["':' in a name", [valid, { name: "evil/c:stream", data: "x" }], "ARCHIVE_BAD_NAME"],
      ["backslash in a name", [valid, { name: "evil\\..\\escaped.txt", data: "x" }], "ARCHIVE_BAD_NAME"],
      ["a Cyrillic \u0405 in place of the S of SKILL.md", [{ name: "evil/\u0405KILL.md", data: skillText("evil") }], "ARCHIVE_BAD_NAME"],
      ["a right-to-left override in a name", [valid, { name: "evil/run\u202Edm.sh", data: "x" }], "ARCHIVE_BAD_NAME"],
      ["too many entries", [valid, ...Array.from({ length: 4096 }, (_, i) => ({ name: `evil/f${i}`, data: "x" }))], "ARCHIVE_TOO_MANY_ENTRIES"],
      ["zip bomb by ratio", [valid, { name: "evil/zeros", data: Buffer.alloc(64 * mebibyte) }], "ARCHIVE_COMPRESSION_RATIO"],
      [
        "zip bomb by total size, lying headers",
        [valid, ...Array.from({ length: 3 }, (_, i) => ({ name: `evil/r${i}`, data: crypto.randomBytes(mebibyte), declaredSize: 1 }))],
        "ARCHIVE_TOO_LARGE",
        { maxTotalBytes: 2 * mebibyte },
      ],
      ["not a zip", Buffer.from("%PDF-1.7 definitely not a zip"), "ARCHIVE_NOT_ZIP"],
      ["name conflict", [{ name: "existing/SKILL.md", data: skillText("existing") }], "SKILL_NAME_CONFLICT"],
    ];
    for (const [title, entries, code, limits] of cases) {
      it(title, async () => {
        const before = tree();
        const data = Buffer.isBuffer(entries) ? entries : buildZip(entries);
        const error = await refusal(install({ kind: "archive", data }, { limits: { ...defaultArchiveLimits, ...limits } }));
        expect(error.code).toBe(code);
        expect(tree()).toEqual(before);
        expect(fs.existsSync(path.join(temp.dir, "escaped.txt"))).toBe(false);
      });
    }
  });
});

describe("a look-alike SKILL.md", () => {
  it("is not a SKILL.md to the package check either, whatever reached the folder", async () => {
    const dir = path.join(temp.dir, "lookalike");
    writeTree(dir, { "\u0405KILL.md": skillText("lookalike") });
    expect((await checkSkillPackage(dir, "lookalike")).problems).toEqual(["SKILL.md is missing"]);
    expect(await findPackageRoot(dir)).toBeUndefined();
  });
});
