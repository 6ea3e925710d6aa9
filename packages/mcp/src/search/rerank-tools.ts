import { compareScored, type QueryConcept, type QueryIntent, type ScoredDocument } from "@thinktank/search";
import { shareAny, type ActionVocabulary } from "./action-vocabulary.js";
import { fieldNames, type RankingWeights, type RerankFeature } from "./search-types.js";
import { fieldCount, type ServerSegment } from "./server-segment.js";

/** A tool of a server segment (by index) and its keyword score. */
export type ScoredTool = ScoredDocument<ServerSegment>;

/** What the query asks for, worked out once per search. */
export interface IntentProfile {
  /** The action groups the query's verbs name. */
  readonly explicit: readonly number[];
  /** The groups a tool may have without contradicting the query. */
  readonly accepted: readonly number[];
  /** 1: the query is about many things; -1: about one; 0: cannot tell (see `ActionProfile.number`). */
  readonly number: -1 | 0 | 1;
  /** Nothing is known about the action asked for (no leading verb): no tool contradicts it. */
  readonly open: boolean;
}

/**
 * An imperative asks for the action of its first word ("create ...", "show ..."); a question asks
 * to be told something, whatever verbs it contains ("which jobs are running"). Reading actions do
 * not contradict one another (a "show" request may be met by a list tool).
 */
export function intentProfile(intent: QueryIntent, vocabulary: ActionVocabulary): IntentProfile {
  const { leading, number } = vocabulary.profile(intent.terms, intent.plural);
  const reading = vocabulary.readingGroups();
  if (intent.question) return { explicit: [], accepted: reading, number, open: false };
  if (leading.length === 0) return { explicit: [], accepted: [], number, open: true };
  const accepted = leading.some((group) => vocabulary.reads(group)) ? [...new Set([...leading, ...reading])].sort((a, b) => a - b) : leading;
  return { explicit: leading, accepted, number, open: false };
}

/** Everything the second stage knows about the query. */
export interface RerankContext {
  readonly intent: IntentProfile;
  readonly concepts: readonly QueryConcept[];
  /** Server → how outright the query names it (0 to 1). */
  readonly mentions: ReadonlyMap<string, number>;
}

const leadField = fieldNames.indexOf("lead");
const titleField = fieldNames.indexOf("title");
const nameField = fieldNames.indexOf("name");

/**
 * The second stage's view of one candidate, each feature from 0 to 1:
 * - actionAgree: the tool's name verb is the action the query asks for;
 * - actionConflict: the name verb contradicts it (create_x for "which x are there");
 * - numberAgree / numberDisagree: the name is about one or many things as the query is, or not;
 * - leadCoverage: the share of the query's concepts its name, title or first sentence says;
 * - mention: how outright the query names the tool's server;
 * - shortName: the name is a single word ("find", "wiki"), which matches any query that says it.
 */
export function rerankFeatures(candidate: ScoredTool, context: RerankContext): Record<RerankFeature, number> {
  const { segment, document: tool } = candidate;
  const actions = segment.actions[tool];
  const groups = actions?.groups ?? [];
  const agree = groups.length > 0 && shareAny(groups, context.intent.explicit);
  const conflict = groups.length > 0 && !agree && !context.intent.open && !shareAny(groups, context.intent.accepted);
  const number = actions?.number ?? 0;
  const known = number !== 0 && context.intent.number !== 0;
  return {
    actionAgree: agree ? 1 : 0,
    actionConflict: conflict ? 1 : 0,
    numberAgree: known && number === context.intent.number ? 1 : 0,
    numberDisagree: known && number !== context.intent.number ? 1 : 0,
    leadCoverage: leadCoverage(segment, tool, context.concepts),
    mention: context.mentions.get(segment.key) ?? 0,
    shortName: (segment.nameTerms[tool]?.length ?? 0) === 1 ? 1 : 0,
  };
}

/**
 * The second stage: the keyword top, re-scored by a small log-linear model over `rerankFeatures`
 * (score × e^(Σ weight × feature)), whose weights are fit on the tuning pairs (eval/tune-weights.ts).
 */
export function rerankTools(candidates: readonly ScoredTool[], context: RerankContext, weights: RankingWeights): ScoredTool[] {
  const entries = Object.entries(weights.rerank) as [RerankFeature, number][];
  const rescored = candidates.map((candidate) => {
    const features = rerankFeatures(candidate, context);
    let sum = 0;
    for (const [feature, weight] of entries) sum += weight * features[feature];
    return { ...candidate, score: candidate.score * Math.exp(sum) };
  });
  return rescored.sort((a, b) => compareScored(a.score, a.segment, a.document, b));
}

/** The share of the query's concepts that the tool's name, title or first sentence says (a synonym counts at its weight). */
function leadCoverage(segment: ServerSegment, tool: number, concepts: readonly QueryConcept[]): number {
  let covered = 0;
  let total = 0;
  for (const concept of concepts) {
    const strongest = concept.alternatives.reduce((max, alternative) => Math.max(max, alternative.weight), 0);
    total += strongest;
    let best = 0;
    for (const alternative of concept.alternatives) {
      if (alternative.weight > best && alternative.terms.every((term) => inStrongField(segment, tool, term))) best = alternative.weight;
    }
    covered += best;
  }
  return total > 0 ? covered / total : 0;
}

function inStrongField(segment: ServerSegment, tool: number, term: string): boolean {
  const postings = segment.postings.get(term);
  if (!postings) return false;
  const { documents, frequencies } = postings;
  let low = 0;
  let high = documents.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = documents[middle] as number;
    if (at === tool) {
      const row = middle * fieldCount;
      return (frequencies[row + nameField] as number) > 0 || (frequencies[row + titleField] as number) > 0 || (frequencies[row + leadField] as number) > 0;
    }
    if (at < tool) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
