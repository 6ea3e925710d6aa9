import type { QueryConcept, QueryPlan } from "./query-plan.js";
import { inverseDocumentFrequency, type SearchStats } from "./search-stats.js";
import type { RankingWeights } from "./search-types.js";
import { fieldNames } from "./search-types.js";
import type { ServerSegment } from "./server-segment.js";

const fields = fieldNames.length;

export interface ScoredTool {
  readonly segment: ServerSegment;
  readonly tool: number;
  readonly score: number;
}

/** Work arrays reused from search to search (sized for the largest server). */
export class ScoringScratch {
  scores = new Float64Array(0);
  matched = new Float64Array(0);
  best = new Float64Array(0);
  alternativeSum = new Float64Array(0);
  touched = new Int32Array(0);
  seen = new Uint8Array(0);
  alternativeTools = new Int32Array(0);
  conceptTools = new Int32Array(0);

  ensure(size: number): void {
    if (this.scores.length >= size) return;
    this.scores = new Float64Array(size);
    this.matched = new Float64Array(size);
    this.best = new Float64Array(size);
    this.alternativeSum = new Float64Array(size);
    this.touched = new Int32Array(size);
    this.seen = new Uint8Array(size);
    this.alternativeTools = new Int32Array(size);
    this.conceptTools = new Int32Array(size);
  }
}

/** A query plan with everything that does not depend on the server worked out once per search. */
export interface PreparedQuery {
  readonly concepts: readonly {
    /** Score at which the concept counts as fully matched. */
    readonly fullMatch: number;
    readonly alternatives: readonly { readonly weight: number; readonly terms: readonly { readonly term: string; readonly idf: number }[] }[];
  }[];
  /** Every term the query searches, with its best weight (for name coverage). */
  readonly queryTerms: ReadonlyMap<string, number>;
}

export function prepareQuery(plan: QueryPlan, stats: SearchStats, weights: RankingWeights): PreparedQuery {
  const queryTerms = new Map<string, number>();
  const concepts = plan.concepts.map((concept) => ({
    fullMatch: weights.fullMatch * strongestMatch(concept, stats),
    alternatives: concept.alternatives.map((alternative) => {
      const terms = [];
      for (const term of alternative.terms) {
        queryTerms.set(term, Math.max(queryTerms.get(term) ?? 0, alternative.weight));
        const frequency = stats.documentFrequency.get(term);
        if (frequency) terms.push({ term, idf: inverseDocumentFrequency(stats.toolCount, frequency) });
      }
      return { weight: alternative.weight, terms };
    }),
  }));
  return { concepts, queryTerms };
}

/**
 * Per tool and field, `fieldWeight / (1 - b + b × length / averageLength)`: the BM25F factor a
 * term frequency is multiplied by. Depends on collection statistics, so callers cache it per
 * statistics version.
 */
export function fieldFactors(segment: ServerSegment, stats: SearchStats, weights: RankingWeights): Float32Array {
  const factors = new Float32Array(segment.tools.length * fields);
  fieldNames.forEach((field, f) => {
    const weight = weights.fields[field];
    const b = weights.lengthNormalization[field];
    const average = stats.averageFieldLengths[f] || 1;
    for (let tool = 0; tool < segment.tools.length; tool++) {
      const length = segment.fieldLengths[tool * fields + f] as number;
      factors[tool * fields + f] = weight / (1 - b + (b * length) / average);
    }
  });
  return factors;
}

/**
 * BM25F over one server's tools. Per concept a tool keeps its best alternative (the word or one
 * synonym); concept scores add up. The sum is then scaled by the share of concepts the tool
 * matches (a concept met only in passing, say in a parameter description, counts partly), by
 * `serverFactor` (how well the server matches), by how fully the tool's own name was asked for,
 * and down for deprecated tools.
 */
export function scoreSegment(
  query: PreparedQuery,
  segment: ServerSegment,
  factors: Float32Array,
  weights: RankingWeights,
  serverFactor: number,
  scratch: ScoringScratch,
  out: TopTools,
): void {
  scratch.ensure(segment.tools.length);
  const { scores, matched, best, alternativeSum, touched, seen, alternativeTools, conceptTools } = scratch;
  let touchedCount = 0;

  for (const concept of query.concepts) {
    let conceptCount = 0;
    for (const alternative of concept.alternatives) {
      let alternativeCount = 0;
      for (const { term, idf } of alternative.terms) {
        const postings = segment.postings.get(term);
        if (!postings) continue;
        const { tools, frequencies } = postings;
        for (let p = 0; p < tools.length; p++) {
          const tool = tools[p] as number;
          let frequency = 0;
          for (let f = 0; f < fields; f++) {
            const tf = frequencies[p * fields + f] as number;
            if (tf !== 0) frequency += tf * (factors[tool * fields + f] as number);
          }
          if (alternativeSum[tool] === 0) alternativeTools[alternativeCount++] = tool;
          alternativeSum[tool] = (alternativeSum[tool] as number) + (idf * frequency) / (weights.k1 + frequency);
        }
      }
      for (let i = 0; i < alternativeCount; i++) {
        const tool = alternativeTools[i] as number;
        const value = (alternativeSum[tool] as number) * alternative.weight;
        if (best[tool] === 0) conceptTools[conceptCount++] = tool;
        if (value > (best[tool] as number)) best[tool] = value;
        alternativeSum[tool] = 0;
      }
    }
    for (let i = 0; i < conceptCount; i++) {
      const tool = conceptTools[i] as number;
      const value = best[tool] as number;
      if (value === 0) continue;
      if (seen[tool] === 0) {
        seen[tool] = 1;
        touched[touchedCount++] = tool;
      }
      scores[tool] = (scores[tool] as number) + value;
      matched[tool] = (matched[tool] as number) + (concept.fullMatch > 0 ? Math.min(1, value / concept.fullMatch) : 1);
      best[tool] = 0;
    }
  }

  const conceptTotal = query.concepts.length;
  for (let i = 0; i < touchedCount; i++) {
    const tool = touched[i] as number;
    const raw = scores[tool] as number;
    const coverage = Math.pow((matched[tool] as number) / conceptTotal, weights.coverage);
    const nameMatch = nameCoverage(segment.nameTerms[tool] ?? [], query.queryTerms);
    const deprecated = segment.deprecated[tool] ? weights.deprecated : 1;
    const score = raw * coverage * serverFactor * (1 + weights.nameMatch * nameMatch) * deprecated;
    if (score > 0) out.offer(segment, tool, score);
    scores[tool] = 0;
    matched[tool] = 0;
    seen[tool] = 0;
  }
}

/** Keeps the best `k` tools offered, best first; equal scores go by server, then tool name. */
export class TopTools {
  readonly #k: number;
  readonly #items: ScoredTool[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  offer(segment: ServerSegment, tool: number, score: number): void {
    const items = this.#items;
    if (items.length === this.#k && compareScored(score, segment, tool, items[items.length - 1] as ScoredTool) >= 0) return;
    let at = items.length;
    while (at > 0 && compareScored(score, segment, tool, items[at - 1] as ScoredTool) < 0) at--;
    items.splice(at, 0, { segment, tool, score });
    if (items.length > this.#k) items.pop();
  }

  results(): ScoredTool[] {
    return [...this.#items];
  }
}

function compareScored(score: number, segment: ServerSegment, tool: number, other: ScoredTool): number {
  if (score !== other.score) return other.score - score;
  if (segment.server !== other.segment.server) return segment.server < other.segment.server ? -1 : 1;
  const name = segment.tools[tool]?.name ?? "";
  const otherName = other.segment.tools[other.tool]?.name ?? "";
  return name < otherName ? -1 : name > otherName ? 1 : 0;
}

/** The most a concept can score: its strongest alternative's summed IDF (terms the index lacks count nothing). */
function strongestMatch(concept: QueryConcept, stats: SearchStats): number {
  let strongest = 0;
  for (const alternative of concept.alternatives) {
    let sum = 0;
    for (const term of alternative.terms) {
      const frequency = stats.documentFrequency.get(term);
      if (frequency) sum += inverseDocumentFrequency(stats.toolCount, frequency);
    }
    strongest = Math.max(strongest, sum * alternative.weight);
  }
  return strongest;
}

/**
 * The share of a tool name's words that the query asked for; a synonym counts at its weight.
 * Every word counts the same: the common verbs ("list", "create") are exactly what tells apart
 * a server's list_workspaces from its create_workspace.
 */
function nameCoverage(nameTerms: readonly string[], queryTerms: ReadonlyMap<string, number>): number {
  let covered = 0;
  for (const term of nameTerms) covered += queryTerms.get(term) ?? 0;
  return nameTerms.length > 0 ? covered / nameTerms.length : 0;
}
