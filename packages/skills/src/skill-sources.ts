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
