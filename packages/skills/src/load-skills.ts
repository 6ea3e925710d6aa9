import { applySkillSettings } from "./apply-skill-settings.js";
import { mergeSkillLists } from "./merge-skill-lists.js";
import { SkillSourceIndex } from "./skill-source-index.js";
import type { Skill, SkillProblem, SkillSettingsDocument, SkillSource } from "./skill-types.js";

export interface LoadSkillsOptions {
  readonly sources: readonly SkillSource[];
  /** extensions_config.json (only `skills` is read). @default no settings: every skill enabled */
  readonly settings?: SkillSettingsDocument;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
}

/**
 * Loads every skill of the sources once, without watchers (the CLI, tests, one-off tools).
 * Long-lived processes use SkillsSnapshotter, which re-reads only what changed.
 */
export async function loadSkills(options: LoadSkillsOptions): Promise<{ skills: Skill[]; problems: SkillProblem[] }> {
  const indexes = options.sources.map((source) => new SkillSourceIndex({ source, containerPath: options.containerPath, watch: false }));
  try {
    for (const index of indexes) await index.refresh("full");
    const merged = mergeSkillLists(indexes.map((index) => index.skills));
    const sources = new Map(indexes.flatMap((index) => index.skills.map((skill) => [skill, index.source] as const)));
    const applied = applySkillSettings(merged.skills, options.settings ?? {}, { source: (skill) => sources.get(skill) });
    return { skills: applied.skills, problems: [...indexes.flatMap((index) => index.problems), ...merged.problems, ...applied.problems] };
  } finally {
    for (const index of indexes) index.close();
  }
}
