import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter } from "@thinktank/core";
import { seededRandom } from "@thinktank/testing";
import { pluginSkillSource } from "../src/skill-sources.js";
import type { Skill, SkillSource } from "../src/skill-types.js";

/**
 * Grows a set of skills to `total` with renamed copies, written under `into` (pass the returned
 * sources to the loader beside the originals'). As the tool bench mirrors servers, round n
 * mirrors each plugin: a copy of `plugin:<p>:<name>` is `plugin:<p>-mirror-<n>:<name>-mirror-<n>`,
 * a copy of a public or custom skill is `custom:<name>-mirror-<n>` ("/" in nested names becomes
 * "-"). A copy keeps its body; its description is perturbed as the tool bench perturbs tool
 * descriptions: about one word in eight dropped or swapped for a word of another skill's
 * description (seeded, so every run writes the same corpus). Copies are near-duplicates, as forks
 * in public marketplaces are: distractors whose original remains the right answer. The eval and
 * the bench share this.
 */
export function growSkills(skills: readonly Skill[], into: string, total: number): { sources: SkillSource[]; copies: number } {
  const next = seededRandom(42);
  const vocabulary = skills.flatMap((skill) => skill.description.split(/\s+/).slice(0, 12)).filter((word) => /^[a-z]{4,}$/.test(word));
  const sources = new Map<string, SkillSource>();
  let copies = 0;
  for (let round = 1; skills.length > 0 && skills.length + copies < total; round++) {
    for (const skill of skills) {
      if (skills.length + copies >= total) break;
      const name = `${skill.name.replace(/\//g, "-")}-mirror-${round}`;
      const plugin = skill.category.startsWith("plugin:") ? `${skill.category.slice("plugin:".length)}-mirror-${round}` : undefined;
      const root = path.join(into, plugin ?? "custom");
      if (!sources.has(root)) sources.set(root, plugin ? pluginSkillSource(plugin, root) : { category: "custom", root, containerPrefix: "custom" });
      writeCopy(skill, path.join(root, name), name, perturb(skill.description, vocabulary, next));
      copies++;
    }
  }
  return { sources: [...sources.values()], copies };
}

function perturb(description: string, vocabulary: readonly string[], next: () => number): string {
  return description
    .split(/\s+/)
    .flatMap((word) => {
      const roll = next();
      if (roll < 0.06) return [];
      if (roll < 0.125) return [vocabulary[Math.floor(next() * vocabulary.length)] ?? word];
      return [word];
    })
    .join(" ");
}

function writeCopy(skill: Skill, dir: string, name: string, description: string): void {
  const parsed = parseFrontmatter(fs.readFileSync(skill.file, "utf8"));
  const body = parsed.ok ? parsed.body : "";
  const lines = ["---", `name: ${name}`, `description: ${JSON.stringify(description)}`];
  if (skill.whenToUse) lines.push(`when_to_use: ${JSON.stringify(skill.whenToUse)}`);
  if (!skill.userInvocable) lines.push("user-invocable: false");
  if (skill.disableModelInvocation) lines.push("disable-model-invocation: true");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `${lines.join("\n")}\n---\n${body}`);
}
