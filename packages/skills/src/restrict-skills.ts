import { renderSkillSystem } from "./render-skill-system.js";
import { SkillSearchIndex } from "./search/skill-search-index.js";
import type { SkillsSnapshot } from "./skills-snapshotter.js";
import type { Skill } from "./skill-types.js";

export interface RestrictSkillsOptions {
  /** Virtual root the model sees (the snapshot's). @default "/mnt/skills" */
  readonly containerPath?: string;
}

/**
 * A snapshot in which only the skills `allowed` lets through stay enabled (an assistant's skill
 * selection): the others show `enabled: false`, so the `<skill_system>` section, search, the
 * listing built over it, the per-message offers, slash commands and view_skill all leave them
 * out. The snapshot itself when every enabled skill is allowed. Frozen, like every snapshot.
 */
export function restrictSkills(snapshot: SkillsSnapshot, allowed: (identity: string) => boolean, options: RestrictSkillsOptions = {}): SkillsSnapshot {
  if (snapshot.skills.every((skill) => !skill.enabled || allowed(skill.identity))) return snapshot;
  const skills = snapshot.skills.map((skill): Skill => (skill.enabled && !allowed(skill.identity) ? Object.freeze({ ...skill, enabled: false }) : skill));
  return Object.freeze({
    ...snapshot,
    skills: Object.freeze(skills),
    promptSection: renderSkillSystem(skills, options),
    search: new SkillSearchIndex(skills),
  });
}
