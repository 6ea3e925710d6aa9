import fs from "node:fs/promises";
import path from "node:path";
import { parseFrontmatter } from "@thinktank/core";
import { checkSkillFrontmatter } from "./check-skill-frontmatter.js";

export interface SkillPackageCheck {
  /** The skill's name when the name itself passed every check. */
  readonly name: string | undefined;
  /** Every reason the package is not a valid skill; empty when it is. */
  readonly problems: readonly string[];
  /** The code an install refuses with: FRONTMATTER_TOO_COMPLEX when the frontmatter passed a parsing bound. */
  readonly code: "INVALID_SKILL" | "FRONTMATTER_TOO_COMPLEX";
}

/**
 * Strict validation of a skill folder, as installs apply it: SKILL.md must be a regular
 * file with YAML frontmatter that meets the Agent Skills spec in full (see
 * checkSkillFrontmatter). `folderName` is the name the folder has or will have; when it is
 * undefined (an archive without a wrapper folder) the folder will be named after the skill.
 */
export async function checkSkillPackage(dir: string, folderName: string | undefined): Promise<SkillPackageCheck> {
  const file = path.join(dir, "SKILL.md");
  let stat;
  try {
    stat = await fs.lstat(file);
  } catch {
    return { name: undefined, problems: ["SKILL.md is missing"], code: "INVALID_SKILL" };
  }
  if (!stat.isFile()) return { name: undefined, problems: ["SKILL.md must be a regular file"], code: "INVALID_SKILL" };
  const parsed = parseFrontmatter(await fs.readFile(file, "utf8"));
  if (!parsed.ok) {
    const at = parsed.problem.line ? ` (line ${parsed.problem.line}${parsed.problem.column ? `, column ${parsed.problem.column}` : ""})` : "";
    const code = parsed.problem.code === "FRONTMATTER_TOO_COMPLEX" ? "FRONTMATTER_TOO_COMPLEX" : "INVALID_SKILL";
    return { name: undefined, problems: [`SKILL.md${at}: ${parsed.problem.message}`], code };
  }
  if (!parsed.hasFrontmatter) {
    return { name: undefined, problems: ["SKILL.md has no YAML frontmatter: it must start with a '---' block holding name and description"], code: "INVALID_SKILL" };
  }
  const declared = typeof parsed.data.name === "string" ? parsed.data.name.trim() : "";
  const { issues } = checkSkillFrontmatter(parsed.data, folderName ?? declared);
  const nameOk = declared !== "" && !issues.some((issue) => issue.field === "name");
  return { name: nameOk ? declared : undefined, problems: issues.map((issue) => issue.message), code: "INVALID_SKILL" };
}

/**
 * Where the skill sits in an unpacked package: the folder itself when SKILL.md is at its top,
 * else its single subfolder (the optional wrapper). Dotfiles and __MACOSX were already left out.
 */
export async function findPackageRoot(dir: string): Promise<{ root: string; wrapper: string | undefined } | undefined> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  if (entries.some((entry) => entry.name === "SKILL.md")) return { root: dir, wrapper: undefined };
  const [only] = entries;
  if (entries.length === 1 && only?.isDirectory()) return { root: path.join(dir, only.name), wrapper: only.name };
  return undefined;
}
