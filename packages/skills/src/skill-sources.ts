import path from "node:path";
import { userFolderName } from "@thinktank/core";
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
 * The folder of one user's own skills under the skills folder: `users/<folder>`, the folder named
 * by core's userFolderName (the id when it is a plain lowercase name, else `h-` and its SHA-256).
 * Derived from the id alone, so no skill name or request can point into another user's folder.
 */
export function userSkillsFolder(skillsRoot: string, userId: string): string {
  return path.join(skillsRoot, "users", userFolderName(userId));
}

/** The source of one user's own skills: identities `user:<name>`, paths under /mnt/skills/user/ (each user sees only theirs). */
export function userSkillSource(skillsRoot: string, userId: string): SkillSource {
  return { category: "user", root: userSkillsFolder(skillsRoot, userId), containerPrefix: "user" };
}
