import { defaultPhraseHints, type DocumentIndexWeights, type PhraseHint } from "@thinktank/search";

/**
 * The fields skill and command search rank on, most telling first: the name (split as an
 * identifier: call-prep → call, prep), the description (with `when_to_use`), the plugin's name,
 * the body's outline (first paragraph and headings) and the start of the body as text.
 */
export const skillSearchFields = ["name", "description", "group", "outline", "body"] as const;
export type SkillSearchField = (typeof skillSearchFields)[number];

/** The ranking of skill search; tuned on packages/skills/eval (dev split only). */
export const defaultSkillSearchWeights: DocumentIndexWeights = {
  // The body weighs little and is fully length-normalised: it adds the words of a skill's lists
  // and tables (its triggers and examples), which lift the right skill into the top 5 more often
  // than they move the first hit.
  fields: { name: 1, description: 1.875, group: 2, outline: 0.25, body: 0.15 },
  lengthNormalization: { name: 0.75, description: 0, group: 0, outline: 0.75, body: 1 },
  k1: 1.8,
  coverage: 0.75,
  fullMatch: 0.25,
  nameMatch: 0.75,
  deprecated: 0.6,
  synonym: 0.9,
  quoted: 0.4,
  context: 0.5,
  entity: 0.5,
  spelling: 0.8,
  related: 0.5,
};

/**
 * Words that people and skill authors use for the same thing. Not the engine's default groups:
 * those map everyday verbs onto tool actions (create/add/new, run/start/call), which blurs skills
 * that differ by task; of them only the two below helped on the dev split. Each entry answers
 * misses among the dev pairs.
 */
export const skillSynonymGroups: readonly (readonly string[])[] = [
  ["remember", "memory", "memorize"],
  ["merge", "combine"],
  ["ios", "iphone", "ipad"],
  ["localhost", "local"],
  ["complaint", "complain", "furious", "angry", "upset"],
  ["shop", "store", "business"],
  ["hiring", "recruiting", "recruit"],
  ["pay", "compensation", "salary", "comp"],
];

/** Everyday phrases and what skills call them: the engine's defaults. */
export const skillPhraseHints: readonly PhraseHint[] = defaultPhraseHints;
