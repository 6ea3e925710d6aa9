import { ThinktankError } from "@thinktank/core";
import type { Skill } from "./skill-types.js";

/**
 * Finds one skill by identity (`custom:pdf`) or bare name, optionally within a category.
 * SKILL_NOT_FOUND when nothing matches; SKILL_AMBIGUOUS (with the candidate identities) when
 * a bare name matches skills in several categories and no category was given.
 */
export function findSkill(skills: readonly Skill[], name: string, category?: string): Skill {
  const matches = skills.filter((skill) => (category === undefined || skill.category === category) && (skill.name === name || skill.identity === name));
  const exact = matches.find((skill) => skill.identity === name);
  if (exact) return exact;
  const [first, ...others] = matches;
  if (!first) {
    throw new ThinktankError("SKILL_NOT_FOUND", category === undefined ? `no skill named "${name}"` : `no skill named "${name}" in category "${category}"`);
  }
  if (others.length > 0) {
    const identities = matches.map((skill) => skill.identity);
    throw new ThinktankError("SKILL_AMBIGUOUS", `"${name}" names ${identities.length} skills (${identities.join(", ")}); choose one with ?category=`, {
      details: { identities, categories: matches.map((skill) => skill.category) },
    });
  }
  return first;
}
