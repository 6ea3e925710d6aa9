import { shareAny, type ActionProfile, type ActionVocabulary } from "./action-vocabulary.js";
import type { QueryIntent } from "./query-plan.js";
import type { RankingWeights } from "./search-types.js";
import { compareScored, type ScoredTool } from "./top-tools.js";

/** What the query asks for, worked out once per search. */
export interface IntentProfile {
  /** The action groups the query's verbs name. */
  readonly explicit: readonly number[];
  /** The groups a tool may have without contradicting the query: the explicit ones, plus every reading group for a question or a query without verbs. */
  readonly accepted: readonly number[];
  readonly number: -1 | 0 | 1;
  /** Nothing is known about the action asked for (no leading verb): no tool contradicts it. */
  readonly open?: boolean;
}

/**
 * An imperative asks for the action of its first word ("create ...", "show ..."); a question asks
 * to be told something, whatever verbs it contains ("which jobs are running"). Reading actions do
 * not contradict one another (a "show" request may be met by a list tool).
 */
export function intentProfile(intent: QueryIntent, vocabulary: ActionVocabulary): IntentProfile {
  const { groups, leading, number } = vocabulary.profile(intent.terms, intent.plural);
  const reading = vocabulary.readingGroups();
  const union = (...lists: (readonly number[])[]) => [...new Set(lists.flat())].sort((a, b) => a - b);
  if (intent.question) return { explicit: [], accepted: reading, number };
  if (leading.length === 0) return { explicit: [], accepted: [], number, open: true };
  return { explicit: leading, accepted: leading.some((group) => vocabulary.reads(group)) ? union(leading, reading) : leading, number };
}

/**
 * The second stage: the keyword top, re-ordered by whether each tool does what the query asks.
 * A tool whose name verb the query asks for gains; one whose verb contradicts it (create_x for
 * "which x are there", delete_x for "show x") loses; a list tool gains for a plural object and a
 * get tool for a singular one. Tools without a verb in their name keep their keyword score.
 */
export function rerankTools(candidates: readonly ScoredTool[], intent: IntentProfile, weights: RankingWeights): ScoredTool[] {
  const rescored = candidates.map((candidate) => {
    const actions = candidate.segment.actions[candidate.tool];
    return actions ? { ...candidate, score: candidate.score * actionFactor(actions, intent, weights) } : candidate;
  });
  return rescored.sort((a, b) => compareScored(a.score, a.segment, a.tool, b));
}

function actionFactor(actions: ActionProfile, intent: IntentProfile, weights: RankingWeights): number {
  let factor = 1;
  if (actions.groups.length > 0) {
    if (shareAny(actions.groups, intent.explicit)) factor *= 1 + weights.actionAgree;
    else if (!intent.open && !shareAny(actions.groups, intent.accepted)) factor *= weights.actionConflict;
  }
  if (actions.number !== 0 && intent.number !== 0) factor *= actions.number === intent.number ? 1 + weights.numberAgree : 1;
  return factor;
}
