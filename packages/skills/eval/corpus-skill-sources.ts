import fs from "node:fs";
import path from "node:path";
import { pluginSkillSource } from "../src/skill-sources.js";
import type { SkillSource } from "../src/skill-types.js";

/**
 * The corpus skills as they are once installed: the skills of `anthropic-skills` as custom skills
 * (`custom:<name>`, /mnt/skills/custom/...), and each plugin of `knowledge-work-plugins` (its
 * partner-built ones too) as an enabled plugin (`plugin:<plugin>:<skill>`, named as its
 * plugin.json says, its skills/ folder as installs place it).
 */
export function corpusSkillSources(corpusDir: string): SkillSource[] {
  const plugins = path.join(corpusDir, "knowledge-work-plugins");
  const folders = [plugins, path.join(plugins, "partner-built")].flatMap((dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort().map((name) => path.join(dir, name)) : []));
  const sources: SkillSource[] = [{ category: "custom", root: path.join(corpusDir, "anthropic-skills"), containerPrefix: "custom" }];
  for (const folder of folders) {
    const manifest = path.join(folder, ".claude-plugin", "plugin.json");
    if (!fs.existsSync(manifest) || !fs.existsSync(path.join(folder, "skills"))) continue;
    const { name } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name: string };
    sources.push(pluginSkillSource(name, path.join(folder, "skills")));
  }
  return sources;
}
