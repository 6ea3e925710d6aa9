import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError, defaultArchiveLimits } from "@thinktank/core";
import type { ArchiveLimits } from "@thinktank/core";
import { checkSkillPackage } from "./check-skill-package.js";
import { readSkill } from "./read-skill.js";
import type { ParsedSkill } from "./skill-types.js";
import { unpackSkillPackage } from "./unpack-skill-package.js";
import type { SkillPackageSource } from "./unpack-skill-package.js";

export interface InstallSkillOptions {
  /** The folder installs go to (skills/custom, or a user's own folder); created when missing. */
  readonly customRoot: string;
  /** The installed skill's category: `custom`, or `user` for a user's own folder (identity `user:<name>`, under /mnt/skills/user/). @default "custom" */
  readonly category?: "custom" | "user";
  readonly source: SkillPackageSource;
  /** Replace an installed custom skill of the same name. @default false */
  readonly overwrite?: boolean;
  /**
   * Refuse every departure from the Agent Skills spec, and YAML a strict parser refuses, as
   * `skills validate` does (for skill authors). Without it the install accepts what Claude Code
   * loads and returns those departures as warnings. @default false
   */
  readonly strict?: boolean;
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** Staging folders older than this are removed at the start of an install (left by a crash). @default 3600000 */
  readonly staleStagingMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /**
   * Asked once the name is known: a message when another skill already uses that identity
   * outside `<customRoot>/<name>` (a nested custom skill), which would make a duplicate.
   * @default no other checks
   */
  readonly identityTaken?: (name: string) => string | undefined | Promise<string | undefined>;
}

const stagingPrefix = ".staging-";

/**
 * Installs a skill into the custom folder. The package is unpacked into a staging folder
 * inside the custom folder (same file system, invisible to discovery as a dot-folder),
 * validated (see checkSkillPackage: INVALID_SKILL lists every reason; FRONTMATTER_TOO_COMPLEX
 * when SKILL.md's frontmatter passes a parsing bound; `strict` refuses spec departures too,
 * else they are the returned skill's warnings), then renamed into place; after any
 * failure nothing is left behind. An existing skill of the same name is SKILL_NAME_CONFLICT
 * unless `overwrite`, which moves the old folder aside and the new one in right after, and
 * moves the old one back if that fails.
 */
export async function installSkill(options: InstallSkillOptions): Promise<ParsedSkill> {
  const { customRoot } = options;
  await fs.mkdir(customRoot, { recursive: true });
  const category = options.category ?? "custom";
  await removeStaleStaging(customRoot, options.staleStagingMs ?? 3_600_000, (options.now ?? Date.now)());
  const staging = await fs.mkdtemp(path.join(customRoot, stagingPrefix));
  try {
    const { root, folderName } = await unpackSkillPackage(options.source, path.join(staging, "package"), options.limits ?? defaultArchiveLimits);
    const check = await checkSkillPackage(root, folderName, { strict: options.strict ?? false });
    const name = check.folder ?? check.name;
    if (check.problems.length > 0 || !name) {
      throw new ThinktankError(check.code, `the skill is not valid: ${check.problems.join("; ")}`, { details: { problems: check.problems } });
    }
    const taken = await options.identityTaken?.(name);
    if (taken) throw new ThinktankError("SKILL_NAME_CONFLICT", taken);
    const target = path.join(customRoot, name);
    const exists = await pathExists(target);
    if (exists && !options.overwrite) {
      throw new ThinktankError("SKILL_NAME_CONFLICT", `${category === "user" ? "one of your skills" : "a custom skill"} named "${name}" is already installed; pass overwrite=true to replace it`);
    }
    if (exists) await swapIn(root, target, path.join(staging, "previous"));
    else await moveIn(root, target, name);
    const source = { category, root: customRoot, containerPrefix: category };
    const loaded = await readSkill(source, name, options.containerPath ?? "/mnt/skills");
    if (!loaded.ok) throw new ThinktankError("INTERNAL", `installed ${name} but cannot read it back: ${loaded.problem.message}`);
    // What the install accepted (a folder renamed after the skill) beside what the loader still sees.
    return { ...loaded.skill, warnings: [...new Set([...check.warnings, ...loaded.skill.warnings])] };
  } finally {
    // Synchronous: a few thousand unlinks at most (the entry limit), far faster than awaiting each.
    fsSync.rmSync(staging, { recursive: true, force: true });
  }
}

async function moveIn(root: string, target: string, name: string): Promise<void> {
  try {
    await fs.rename(root, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR") {
      throw new ThinktankError("SKILL_NAME_CONFLICT", `a custom skill named "${name}" was installed meanwhile`, { cause: error });
    }
    throw error;
  }
}

/** Two renames on one file system: the old folder stays whole until the new one is ready to take its place. */
async function swapIn(root: string, target: string, aside: string): Promise<void> {
  await fs.rename(target, aside);
  try {
    await fs.rename(root, target);
  } catch (error) {
    await fs.rename(aside, target);
    throw error;
  }
}

async function removeStaleStaging(customRoot: string, maxAgeMs: number, now: number): Promise<void> {
  for (const entry of await fs.readdir(customRoot, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(stagingPrefix)) continue;
    const folder = path.join(customRoot, entry.name);
    const stat = await fs.stat(folder).catch(() => undefined);
    if (stat && now - stat.mtimeMs > maxAgeMs) await fs.rm(folder, { recursive: true, force: true });
  }
}

async function pathExists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}
