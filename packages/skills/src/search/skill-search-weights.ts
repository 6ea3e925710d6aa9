import { defaultSynonymGroups, type DocumentIndexWeights } from "@thinktank/search";

/**
 * The fields skill and command search rank on, most telling first: the name (split as an
 * identifier: call-prep → call, prep), the description (with `when_to_use`), the plugin's name,
 * and the body's outline (first paragraph and headings).
 */
export const skillSearchFields = ["name", "description", "group", "outline"] as const;
export type SkillSearchField = (typeof skillSearchFields)[number];

/** The ranking of skill search; tuned on packages/skills/eval (dev split only). */
export const defaultSkillSearchWeights: DocumentIndexWeights = {
  fields: { name: 3, description: 2, group: 1, outline: 0.5 },
  lengthNormalization: { name: 0.75, description: 0.75, group: 0, outline: 0.75 },
  k1: 1.2,
  coverage: 0.75,
  fullMatch: 0.2,
  nameMatch: 1,
  deprecated: 0.6,
  synonym: 0.6,
  quoted: 0.4,
  context: 0.5,
  entity: 0.5,
};

/** The engine's synonym groups, plus words that people and skill authors use for the same task. */
export const skillSynonymGroups: readonly (readonly string[])[] = [...defaultSynonymGroups];
