import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError, cleanVirtualPath, isInsideFolder } from "@thinktank/core";
import type { Skill } from "./skill-types.js";

export interface ResolveSkillPathOptions {
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
}

export interface ResolvedSkillPath {
  readonly skill: Skill;
  /** The real file or folder, symlinks resolved, inside the skill's folder. */
  readonly file: string;
  /** The virtual path, cleaned ("/mnt/skills/public/pdf/SKILL.md"). */
  readonly virtualPath: string;
}

/**
 * Maps a virtual path (`/mnt/skills/<category>/<relative path>/...`) to the real file of an
 * enabled skill. Refused: what cleanVirtualPath refuses (NUL bytes, backslashes and relative paths
 * are INVALID_PATH; '..' segments and percent-encoded dots, slashes or NULs PATH_TRAVERSAL), paths
 * outside the container path (INVALID_PATH), paths whose symlinks lead outside the skill's folder
 * (PATH_TRAVERSAL), paths of unknown or disabled skills (SKILL_NOT_FOUND) and missing files (NOT_FOUND).
 */
export async function resolveSkillPath(virtualPath: string, skills: readonly Skill[], options: ResolveSkillPathOptions = {}): Promise<ResolvedSkillPath> {
  const containerPath = (options.containerPath ?? "/mnt/skills").replace(/\/+$/, "");
  const shown = JSON.stringify(virtualPath);
  const cleaned = cleanVirtualPath(virtualPath, containerPath);
  if (cleaned !== containerPath && !cleaned.startsWith(`${containerPath}/`)) {
    throw new ThinktankError("INVALID_PATH", `path ${shown} is not under ${containerPath}`);
  }
  const segments = cleaned.slice(containerPath.length).split("/").filter((segment) => segment !== "");

  const byContainerDir = new Map<string, Skill>();
  for (const skill of skills) byContainerDir.set(skill.containerDir, skill);
  let skill: Skill | undefined;
  let matched = 0;
  // The longest match wins: a nested skill's files belong to it, not to the skill around it.
  for (let depth = segments.length; depth > 0 && !skill; depth--) {
    skill = byContainerDir.get(`${containerPath}/${segments.slice(0, depth).join("/")}`);
    matched = depth;
  }
  if (!skill) throw new ThinktankError("SKILL_NOT_FOUND", `no skill at ${shown}`);
  if (!skill.enabled) throw new ThinktankError("SKILL_NOT_FOUND", `the skill at ${shown} (${skill.identity}) is disabled`);

  const rest = segments.slice(matched);
  let real: string;
  let realDir: string;
  try {
    realDir = await fs.realpath(skill.dir);
    real = await fs.realpath(path.join(skill.dir, ...rest));
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `${cleaned} does not exist`, { cause: error });
  }
  if (!isInsideFolder(realDir, real)) {
    throw new ThinktankError("PATH_TRAVERSAL", `${cleaned} is a link that leads outside the skill's folder`);
  }
  return { skill, file: real, virtualPath: cleaned };
}
