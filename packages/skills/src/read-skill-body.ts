import fs from "node:fs";
import { parseFrontmatter } from "@thinktank/core";
import type { Skill } from "./skill-types.js";

/**
 * A skill's SKILL.md body (level 2 of progressive disclosure), read when the skill is opened or
 * invoked, never at listing time. A file that cannot be read answers a note naming the skill's
 * folder, so the model can still look there.
 */
export function readSkillBody(skill: Skill): string {
  try {
    return parseFrontmatter(fs.readFileSync(skill.file, "utf8")).body;
  } catch (error) {
    return `(the SKILL.md of ${skill.name} could not be read (${(error as Error).message}); read ${skill.containerPath})`;
  }
}
