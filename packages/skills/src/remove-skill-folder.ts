import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import type { Skill } from "./skill-types.js";

/**
 * Removes a skill's folder, which must be inside `root` (skills/custom, or a user's own folder;
 * FORBIDDEN otherwise): renamed away first, so the skill disappears at once and whole, then deleted.
 */
export async function removeSkillFolder(root: string, skill: Skill): Promise<void> {
  const relative = path.relative(root, skill.dir);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new ThinktankError("FORBIDDEN", `${skill.identity} is not inside ${root}`);
  }
  const doomed = await fs.mkdtemp(path.join(root, ".staging-delete-"));
  try {
    await fs.rename(skill.dir, path.join(doomed, "skill"));
  } finally {
    fsSync.rmSync(doomed, { recursive: true, force: true });
  }
}
