import { createHash } from "node:crypto";
import path from "node:path";
import type { SkillSource } from "./skill-types.js";

/** The two built-in sources under the skills folder: skills/public and skills/custom. */
export function defaultSkillSources(skillsRoot: string): SkillSource[] {
  return [
    { category: "public", root: path.join(skillsRoot, "public"), containerPrefix: "public" },
    { category: "custom", root: path.join(skillsRoot, "custom"), containerPrefix: "custom" },
  ];
}

/** The source for an enabled plugin's skills folder: identities `plugin:<plugin>:<skill>`, paths under /mnt/skills/plugins/<plugin>/. */
export function pluginSkillSource(pluginName: string, skillsFolder: string): SkillSource {
  return { category: `plugin:${pluginName}`, root: skillsFolder, containerPrefix: `plugins/${pluginName}` };
}

/**
 * The folder of one user's own skills under the skills folder: `users/<folder>`, where the folder
 * is the user id when it is a plain lowercase name (`usr_1a2b`, `admin`) and otherwise `h-` and the
 * SHA-256 of the id (a JWT user `jwt:<claim>` may carry any characters). Derived from the id alone,
 * so no skill name or request can point into another user's folder.
 */
export function userSkillsFolder(skillsRoot: string, userId: string): string {
  const folder = /^[a-z0-9_]{1,64}$/.test(userId) ? userId : `h-${createHash("sha256").update(userId).digest("hex").slice(0, 40)}`;
  return path.join(skillsRoot, "users", folder);
}

/** The source of one user's own skills: identities `user:<name>`, paths under /mnt/skills/user/ (each user sees only theirs). */
export function userSkillSource(skillsRoot: string, userId: string): SkillSource {
  return { category: "user", root: userSkillsFolder(skillsRoot, userId), containerPrefix: "user" };
}
