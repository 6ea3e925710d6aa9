import fs from "node:fs";
import path from "node:path";
import { pluginSkillSource } from "../src/skill-sources.js";
import type { SkillSource } from "../src/skill-types.js";
import { skillsEvalDir } from "./skill-gold.js";

/** The skills written for this repository's never-tuned evaluation: one folder per plugin, a SKILL.md per skill. */
export const freshSkillsDir = path.join(skillsEvalDir, "fresh", "skills");
/** The skills written with the unseen held-out split (gold/unseen-test.jsonl), laid out as the fresh ones: `freshSkillSources(unseenSkillsDir)`. */
export const unseenSkillsDir = path.join(skillsEvalDir, "unseen", "skills");

/**
 * The fresh skills (`fresh/skills/<plugin>/<skill>/SKILL.md`) as enabled plugins' skills,
 * `plugin:<plugin>:<skill>`, installed beside the corpus's for the fresh gold splits.
 */
export function freshSkillSources(dir: string = freshSkillsDir): SkillSource[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((plugin) => pluginSkillSource(plugin, path.join(dir, plugin)));
}
