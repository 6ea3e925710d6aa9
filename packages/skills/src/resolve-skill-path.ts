import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
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
 * enabled skill. Refused: NUL bytes and backslashes (INVALID_PATH), paths outside the
 * container path (INVALID_PATH), '..' segments and percent-encoded dots, slashes or NULs
 * (PATH_TRAVERSAL), paths whose symlinks lead outside the skill's folder (PATH_TRAVERSAL),
 * paths of unknown or disabled skills (SKILL_NOT_FOUND) and missing files (NOT_FOUND).
 */
export async function resolveSkillPath(virtualPath: string, skills: readonly Skill[], options: ResolveSkillPathOptions = {}): Promise<ResolvedSkillPath> {
  const containerPath = (options.containerPath ?? "/mnt/skills").replace(/\/+$/, "");
  const shown = JSON.stringify(virtualPath);
  if (virtualPath.includes("\u0000")) throw new ThinktankError("INVALID_PATH", `path ${JSON.stringify(virtualPath.replaceAll("\u0000", "\\0"))} contains a NUL byte`);
  if (virtualPath.includes("\\")) throw new ThinktankError("INVALID_PATH", `path ${shown} contains a backslash; use '/'`);
  refuseEncodedTraversal(virtualPath);
  if (virtualPath !== containerPath && !virtualPath.startsWith(`${containerPath}/`)) {
    throw new ThinktankError("INVALID_PATH", `path ${shown} is not under ${containerPath}`);
  }
  const segments = virtualPath
    .slice(containerPath.length)
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new ThinktankError("PATH_TRAVERSAL", `path ${shown} contains '..'; paths must stay inside a skill's folder`);

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
  const cleaned = [containerPath, ...segments].join("/");
  let real: string;
  let realDir: string;
  try {
    realDir = await fs.realpath(skill.dir);
    real = await fs.realpath(path.join(skill.dir, ...rest));
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `${cleaned} does not exist`, { cause: error });
  }
  if (real !== realDir && !real.startsWith(`${realDir}${path.sep}`)) {
    throw new ThinktankError("PATH_TRAVERSAL", `${cleaned} is a link that leads outside the skill's folder`);
  }
  return { skill, file: real, virtualPath: cleaned };
}

/** Percent-encoded '.', '/', '\' or NUL, also double-encoded (%252e), are refused outright. */
function refuseEncodedTraversal(virtualPath: string): void {
  let text = virtualPath;
  for (let round = 0; round < 4; round++) {
    if (/%(2e|2f|5c|00)/i.test(text)) {
      throw new ThinktankError("PATH_TRAVERSAL", `path ${JSON.stringify(virtualPath)} contains a percent-encoded '.', '/', '\\' or NUL`);
    }
    const decoded = text.replace(/%25/gi, "%");
    if (decoded === text) return;
    text = decoded;
  }
}
