import type { QueryConcept, QueryPlan } from "./query-plan.js";
import { inverseDocumentFrequency, type SearchStats } from "./search-stats.js";
import type { RankingWeights } from "./search-types.js";
import { fieldNames } from "./search-types.js";
import type { ServerSegment } from "./server-segment.js";
import type { TopTools } from "./top-tools.js";

const fields = fieldNames.length;

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
 * A server's BM25F term weights under the current collection statistics: for each term and tool
 * the saturated frequency `f / (k1 + f)`, where `f` adds up the term's frequency in each field
 * times `fieldWeight / (1 - b + b × length / averageLength)`. Worked out per term on first use
 * and kept until the statistics move (the index decides when).
 */
export class SegmentWeights {
  readonly #segment: ServerSegment;
  readonly #factors: Float32Array;
  readonly #k1: number;
  readonly #saturations = new Map<string, Float32Array>();

  constructor(segment: ServerSegment, averageFieldLengths: Float64Array, weights: RankingWeights) {
    this.#segment = segment;
    this.#k1 = weights.k1;
    const factors = new Float32Array(segment.tools.length * fields);
    fieldNames.forEach((field, f) => {
      const weight = weights.fields[field];
      const b = weights.lengthNormalization[field];
      const average = averageFieldLengths[f] || 1;
      for (let tool = 0; tool < segment.tools.length; tool++) {
        const length = segment.fieldLengths[tool * fields + f] as number;
        factors[tool * fields + f] = weight / (1 - b + (b * length) / average);
      }
    });
    this.#factors = factors;
  }

  /** Per posting of `term` (same order as the postings), its saturated BM25F frequency; undefined when the server lacks the term. */
  saturation(term: string): Float32Array | undefined {
    const cached = this.#saturations.get(term);
    if (cached) return cached;
    const postings = this.#segment.postings.get(term);
    if (!postings) return undefined;
    const { tools, frequencies } = postings;
    const saturation = new Float32Array(tools.length);
    for (let p = 0; p < tools.length; p++) {
      const tool = tools[p] as number;
      let frequency = 0;
      for (let f = 0; f < fields; f++) {
        const tf = frequencies[p * fields + f] as number;
        if (tf !== 0) frequency += tf * (this.#factors[tool * fields + f] as number);
      }
      saturation[p] = frequency / (this.#k1 + frequency);
    }
    this.#saturations.set(term, saturation);
    return saturation;
  }
}

/** A term's postings in a layout's global numbering, with each posting's saturated BM25F frequency. */
export interface TermPostings {
  readonly tools: Int32Array;
  readonly saturation: Float32Array;
}

/** Gathers a term's postings from every server of a layout into one list. */
export function gatherPostings(term: string, layout: ToolLayout, holders: Iterable<ServerSegment>, weightsOf: (segment: ServerSegment) => SegmentWeights): TermPostings | undefined {
  const parts: { offset: number; tools: Int32Array; saturation: Float32Array }[] = [];
  let length = 0;
  for (const segment of holders) {
    const offset = layout.offsets.get(segment);
    const tools = segment.postings.get(term)?.tools;
    const saturation = weightsOf(segment).saturation(term);
    if (offset === undefined || !tools || !saturation) continue;
    parts.push({ offset, tools, saturation });
    length += tools.length;
  }
  if (length === 0) return undefined;
  const tools = new Int32Array(length);
  const saturation = new Float32Array(length);
  let at = 0;
  for (const part of parts) {
    for (let p = 0; p < part.tools.length; p++) tools[at + p] = part.offset + (part.tools[p] as number);
    saturation.set(part.saturation, at);
    at += part.tools.length;
  }
  return { tools, saturation };
}

/** Where each server's tools sit in one global numbering, so scores for all servers share one set of arrays. */
export interface ToolLayout {
  readonly segments: readonly ServerSegment[];
  /** The first global number of each segment's tools, by segment. */
  readonly offsets: ReadonlyMap<ServerSegment, number>;
  /** The same, by the segment's position in `segments`. */
  readonly offsetAt: Int32Array;
  /** Global number → its segment's position in `segments`. */
  readonly segmentOf: Int32Array;
  readonly toolCount: number;
}

export function layoutTools(segments: readonly ServerSegment[]): ToolLayout {
  const offsets = new Map<ServerSegment, number>();
  let total = 0;
  for (const segment of segments) {
    offsets.set(segment, total);
    total += segment.tools.length;
  }
  const segmentOf = new Int32Array(total);
  const offsetAt = new Int32Array(segments.length);
  segments.forEach((segment, i) => {
    offsetAt[i] = offsets.get(segment) as number;
    segmentOf.fill(i, offsetAt[i], (offsetAt[i] as number) + segment.tools.length);
  });
  return { segments, offsets, offsetAt, segmentOf, toolCount: total };
}

/**
 * BM25F over the tools of the given servers. Per concept a tool keeps its best alternative (the
 * word or one synonym); concept scores add up. The sum is then scaled by the share of concepts the
 * tool matches (a concept met only in passing, say in a parameter description, counts partly), by
 * its server's factor (how well the server matches the query), by how fully the tool's own name
 * was asked for, and down for deprecated tools. Work is proportional to the postings touched.
 */
export function scoreTools(
  query: PreparedQuery,
  layout: ToolLayout,
  postingsOf: (term: string) => TermPostings | undefined,
  serverFactorOf: (segment: ServerSegment) => number,
  weights: RankingWeights,
  scratch: ScoringScratch,
  out: TopTools,
): void {
  scratch.ensure(layout.toolCount);
  const { scores, matched, best, alternativeSum, touched, seen, alternativeTools, conceptTools } = scratch;
  let touchedCount = 0;

  for (const concept of query.concepts) {
    let conceptCount = 0;
    for (const alternative of concept.alternatives) {
      let alternativeCount = 0;
      for (const { term, idf } of alternative.terms) {
        const postings = postingsOf(term);
        if (!postings) continue;
        const { tools, saturation } = postings;
        for (let p = 0; p < tools.length; p++) {
          const tool = tools[p] as number;
          if (alternativeSum[tool] === 0) alternativeTools[alternativeCount++] = tool;
          alternativeSum[tool] = (alternativeSum[tool] as number) + idf * (saturation[p] as number);
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
  const serverFactors = new Float64Array(layout.segments.length).fill(Number.NaN);
  for (let i = 0; i < touchedCount; i++) {
    const global = touched[i] as number;
    const at = layout.segmentOf[global] as number;
    const segment = layout.segments[at] as ServerSegment;
    const tool = global - (layout.offsetAt[at] as number);
    if (Number.isNaN(serverFactors[at])) serverFactors[at] = serverFactorOf(segment);
    const coverage = Math.pow((matched[global] as number) / conceptTotal, weights.coverage);
    const base = (scores[global] as number) * coverage * (serverFactors[at] as number) * (segment.deprecated[tool] ? weights.deprecated : 1);
    scores[global] = 0;
    matched[global] = 0;
    seen[global] = 0;
    // The name bonus can at most multiply by (1 + nameMatch): skip tools that cannot make the top even so.
    if (base <= 0 || base * (1 + weights.nameMatch) < out.threshold()) continue;
    out.offer(segment, tool, base * (1 + weights.nameMatch * nameCoverage(segment.nameTerms[tool] ?? [], query.queryTerms)));
  }
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
