import fs from "node:fs/promises";
import path from "node:path";
import { checkEntryPath, isThinktankError, parseFrontmatter, type FrontmatterProblem } from "@thinktank/core";
import { checkSkillFrontmatter } from "./check-skill-frontmatter.js";
import { descriptionFromBody } from "./description-from-body.js";
import { describedIssues, noFrontmatterWarning, recoveredYamlWarning } from "./read-skill.js";

export interface SkillPackageCheck {
  /** The skill's name when the name itself passed every check (strict), or when it is usable at all (lenient). */
  readonly name: string | undefined;
  /** The folder the skill is installed as: its name, else (lenient, a name no folder can have) the package's folder name. */
  readonly folder?: string;
  /** Every reason the package is refused; empty when it is accepted. */
  readonly problems: readonly string[];
  /** Departures from the Agent Skills spec that the lenient check accepts (strict: none, they are problems). */
  readonly warnings: readonly string[];
  /** The code an install refuses with: FRONTMATTER_TOO_COMPLEX when the frontmatter passed a parsing bound. */
  readonly code: "INVALID_SKILL" | "FRONTMATTER_TOO_COMPLEX";
}

/**
 * Validation of a skill folder. SKILL.md must be a regular file with frontmatter holding a
 * usable description, within the parsing bounds (lenient: or a body whose first paragraph
 * stands for the missing description or frontmatter, as Claude Code does). `strict` (skills validate, install with
 * strict=true) also refuses every departure from the Agent Skills spec (checkSkillFrontmatter)
 * and YAML a strict parser refuses. Without it, as Claude Code loads skills, those are
 * warnings: the YAML is read line by line, and a name that differs from the folder's names the
 * installed folder. `folderName` is the name the folder has or will have; when it is undefined
 * (an archive without a wrapper folder) the folder will be named after the skill.
 */
export async function checkSkillPackage(dir: string, folderName: string | undefined, options: { readonly strict?: boolean } = {}): Promise<SkillPackageCheck> {
  const strict = options.strict ?? true;
  const file = path.join(dir, "SKILL.md");
  let stat;
  try {
    stat = await fs.lstat(file);
  } catch {
    return refused("SKILL.md is missing");
  }
  if (!stat.isFile()) return refused("SKILL.md must be a regular file");
  const parsed = parseFrontmatter(await fs.readFile(file, "utf8"), { lineWise: !strict });
  if (!parsed.ok) {
    const code = parsed.problem.code === "FRONTMATTER_TOO_COMPLEX" ? "FRONTMATTER_TOO_COMPLEX" : "INVALID_SKILL";
    return { ...refused(`SKILL.md${lineOf(parsed.problem)}: ${parsed.problem.message}`), code };
  }
  const noFrontmatter = "SKILL.md has no YAML frontmatter: it must start with a '---' block holding name and description";
  if (!parsed.hasFrontmatter && (strict || descriptionFromBody(parsed.body) === undefined)) return refused(noFrontmatter);
  const declared = typeof parsed.data.name === "string" ? parsed.data.name.trim() : "";
  const { fields, issues } = checkSkillFrontmatter(parsed.data, folderName ?? declared);
  if (strict) {
    const nameOk = declared !== "" && !issues.some((issue) => issue.field === "name");
    return { name: nameOk ? declared : undefined, problems: issues.map((issue) => issue.message), warnings: [], code: "INVALID_SKILL" };
  }
  const warnings = parsed.recovered ? [recoveredYamlWarning(parsed.recovered)] : [];
  const description = fields.description ?? descriptionFromBody(parsed.body);
  if (description === undefined) return refused(...issues.filter((issue) => issue.field === "description").map((issue) => issue.message));
  warnings.push(...(parsed.hasFrontmatter ? describedIssues(issues, fields.description === undefined) : [noFrontmatterWarning]));
  const folder = [declared, folderName].find((candidate) => candidate !== undefined && isFolderName(candidate));
  if (!folder) return refused(declared === "" ? "name is required (the package has no folder to take it from)" : `name "${declared}" cannot be a folder name`);
  return { name: declared || folder, folder, problems: [], warnings, code: "INVALID_SKILL" };
}

function refused(...problems: string[]): SkillPackageCheck {
  return { name: undefined, problems, warnings: [], code: "INVALID_SKILL" };
}

function lineOf(problem: FrontmatterProblem): string {
  return problem.line ? ` (line ${problem.line}${problem.column ? `, column ${problem.column}` : ""})` : "";
}

/** One path segment the archive rules accept (no separators, traversal or lying characters), not hidden (the loader skips dot-folders). */
function isFolderName(name: string): boolean {
  if (name.startsWith(".") || name.includes("/") || [...name].length > 128) return false;
  try {
    return checkEntryPath(name).length === 1;
  } catch (error) {
    if (isThinktankError(error)) return false;
    throw error;
  }
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
