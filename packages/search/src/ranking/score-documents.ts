import type { QueryConcept, QueryPlan } from "../query/query-plan.js";
import type { Segment } from "./document-segment.js";
import { inverseDocumentFrequency, type SearchStats } from "./search-stats.js";
import type { ScoringWeights } from "./scoring-weights.js";
import type { TopDocuments } from "./top-documents.js";

/** Work arrays reused from search to search (sized for the whole collection). */
export class ScoringScratch {
  scores = new Float64Array(0);
  matched = new Float64Array(0);
  best = new Float64Array(0);
  alternativeSum = new Float64Array(0);
  touched = new Int32Array(0);
  seen = new Uint8Array(0);
  alternativeDocuments = new Int32Array(0);
  conceptDocuments = new Int32Array(0);

  ensure(size: number): void {
    if (this.scores.length >= size) return;
    this.scores = new Float64Array(size);
    this.matched = new Float64Array(size);
    this.best = new Float64Array(size);
    this.alternativeSum = new Float64Array(size);
    this.touched = new Int32Array(size);
    this.seen = new Uint8Array(size);
    this.alternativeDocuments = new Int32Array(size);
    this.conceptDocuments = new Int32Array(size);
  }
}

/** A query plan with everything that does not depend on the segment worked out once per search. */
export interface PreparedQuery {
  readonly concepts: readonly {
    /** Score at which the concept counts as fully matched. */
    readonly fullMatch: number;
    readonly alternatives: readonly { readonly weight: number; readonly terms: readonly { readonly term: string; readonly idf: number }[] }[];
  }[];
  /** Every term the query searches, with its best weight (for name coverage). */
  readonly queryTerms: ReadonlyMap<string, number>;
}

export function prepareQuery(plan: QueryPlan, stats: SearchStats, weights: Pick<ScoringWeights, "fullMatch">): PreparedQuery {
  const queryTerms = new Map<string, number>();
  const concepts = plan.concepts.map((concept) => ({
    fullMatch: weights.fullMatch * strongestMatch(concept, stats),
    alternatives: concept.alternatives.map((alternative) => {
      const terms = [];
      for (const term of alternative.terms) {
        queryTerms.set(term, Math.max(queryTerms.get(term) ?? 0, alternative.weight));
        const frequency = stats.documentFrequency.get(term);
        if (frequency) terms.push({ term, idf: inverseDocumentFrequency(stats.documentCount, frequency) });
      }
      return { weight: alternative.weight, terms };
    }),
  }));
  return { concepts, queryTerms };
}

/**
 * A segment's BM25F term weights under the current collection statistics: for each term and
 * document the saturated frequency `f / (k1 + f)`, where `f` adds up the term's frequency in each
 * field times `fieldWeight / (1 - b + b × length / averageLength)`. Worked out per term on first
 * use and kept until the statistics move (the index decides when).
 */
export class SegmentWeights {
  readonly #segment: Segment;
  readonly #factors: Float32Array;
  readonly #k1: number;
  readonly #saturations = new Map<string, Float32Array>();

  constructor(segment: Segment, fieldNames: readonly string[], averageFieldLengths: Float64Array, weights: ScoringWeights) {
    this.#segment = segment;
    this.#k1 = weights.k1;
    const fields = segment.fieldCount;
    const factors = new Float32Array(segment.ids.length * fields);
    fieldNames.forEach((field, f) => {
      const weight = weights.fields[field] ?? 0;
      const b = weights.lengthNormalization[field] ?? 0;
      const average = averageFieldLengths[f] || 1;
      for (let document = 0; document < segment.ids.length; document++) {
        const length = segment.fieldLengths[document * fields + f] as number;
        factors[document * fields + f] = weight / (1 - b + (b * length) / average);
      }
    });
    this.#factors = factors;
  }

  /** Per posting of `term` (same order as the postings), its saturated BM25F frequency; undefined when the segment lacks the term. */
  saturation(term: string): Float32Array | undefined {
    const cached = this.#saturations.get(term);
    if (cached) return cached;
    const postings = this.#segment.postings.get(term);
    if (!postings) return undefined;
    const fields = this.#segment.fieldCount;
    const { documents, frequencies } = postings;
    const saturation = new Float32Array(documents.length);
    for (let p = 0; p < documents.length; p++) {
      const document = documents[p] as number;
      let frequency = 0;
      for (let f = 0; f < fields; f++) {
        const tf = frequencies[p * fields + f] as number;
        if (tf !== 0) frequency += tf * (this.#factors[document * fields + f] as number);
      }
      saturation[p] = frequency / (this.#k1 + frequency);
    }
    this.#saturations.set(term, saturation);
    return saturation;
  }
}

/** A term's postings in a layout's global numbering, with each posting's saturated BM25F frequency. */
export interface TermPostings {
  readonly documents: Int32Array;
  readonly saturation: Float32Array;
}

/** Gathers a term's postings from every segment of a layout into one list. */
export function gatherPostings<S extends Segment>(term: string, layout: DocumentLayout<S>, holders: Iterable<S>, weightsOf: (segment: S) => SegmentWeights): TermPostings | undefined {
  const parts: { offset: number; documents: Int32Array; saturation: Float32Array }[] = [];
  let length = 0;
  for (const segment of holders) {
    const offset = layout.offsets.get(segment);
    const documents = segment.postings.get(term)?.documents;
    const saturation = weightsOf(segment).saturation(term);
    if (offset === undefined || !documents || !saturation) continue;
    parts.push({ offset, documents, saturation });
    length += documents.length;
  }
  if (length === 0) return undefined;
  const documents = new Int32Array(length);
  const saturation = new Float32Array(length);
  let at = 0;
  for (const part of parts) {
    for (let p = 0; p < part.documents.length; p++) documents[at + p] = part.offset + (part.documents[p] as number);
    saturation.set(part.saturation, at);
    at += part.documents.length;
  }
  return { documents, saturation };
}

/** Where each segment's documents sit in one global numbering, so scores for all segments share one set of arrays. */
export interface DocumentLayout<S extends Segment = Segment> {
  readonly segments: readonly S[];
  /** The first global number of each segment's documents, by segment. */
  readonly offsets: ReadonlyMap<S, number>;
  /** The same, by the segment's position in `segments`. */
  readonly offsetAt: Int32Array;
  /** Global number → its segment's position in `segments`. */
  readonly segmentOf: Int32Array;
  readonly documentCount: number;
}

export function layoutDocuments<S extends Segment>(segments: readonly S[]): DocumentLayout<S> {
  const offsets = new Map<S, number>();
  let total = 0;
  for (const segment of segments) {
    offsets.set(segment, total);
    total += segment.ids.length;
  }
  const segmentOf = new Int32Array(total);
  const offsetAt = new Int32Array(segments.length);
  segments.forEach((segment, i) => {
    offsetAt[i] = offsets.get(segment) as number;
    segmentOf.fill(i, offsetAt[i], (offsetAt[i] as number) + segment.ids.length);
  });
  return { segments, offsets, offsetAt, segmentOf, documentCount: total };
}

/**
 * BM25F over the documents of the given segments. Per concept a document keeps its best
 * alternative (the word or one synonym); concept scores add up. The sum is then scaled by the
 * share of concepts the document matches (a concept met only in passing, say in a parameter
 * description, counts partly), by its segment's factor (for tools: how well the server matches
 * the query), by how fully the document's own name was asked for, and down for deprecated ones.
 * Work is proportional to the postings touched.
 */
export function scoreDocuments<S extends Segment>(
  query: PreparedQuery,
  layout: DocumentLayout<S>,
  postingsOf: (term: string) => TermPostings | undefined,
  segmentFactorOf: (segment: S) => number,
  weights: ScoringWeights,
  scratch: ScoringScratch,
  out: TopDocuments<S>,
): void {
  scratch.ensure(layout.documentCount);
  const { scores, matched, best, alternativeSum, touched, seen, alternativeDocuments, conceptDocuments } = scratch;
  let touchedCount = 0;

  for (const concept of query.concepts) {
    let conceptCount = 0;
    for (const alternative of concept.alternatives) {
      let alternativeCount = 0;
      for (const { term, idf } of alternative.terms) {
        const postings = postingsOf(term);
        if (!postings) continue;
        const { documents, saturation } = postings;
        for (let p = 0; p < documents.length; p++) {
          const document = documents[p] as number;
          if (alternativeSum[document] === 0) alternativeDocuments[alternativeCount++] = document;
          alternativeSum[document] = (alternativeSum[document] as number) + idf * (saturation[p] as number);
        }
      }
      for (let i = 0; i < alternativeCount; i++) {
        const document = alternativeDocuments[i] as number;
        const value = (alternativeSum[document] as number) * alternative.weight;
        if (best[document] === 0) conceptDocuments[conceptCount++] = document;
        if (value > (best[document] as number)) best[document] = value;
        alternativeSum[document] = 0;
      }
    }
    for (let i = 0; i < conceptCount; i++) {
      const document = conceptDocuments[i] as number;
      const value = best[document] as number;
      if (value === 0) continue;
      if (seen[document] === 0) {
        seen[document] = 1;
        touched[touchedCount++] = document;
      }
      scores[document] = (scores[document] as number) + value;
      matched[document] = (matched[document] as number) + (concept.fullMatch > 0 ? Math.min(1, value / concept.fullMatch) : 1);
      best[document] = 0;
    }
  }

  const conceptTotal = query.concepts.length;
  const segmentFactors = new Float64Array(layout.segments.length).fill(Number.NaN);
  for (let i = 0; i < touchedCount; i++) {
    const global = touched[i] as number;
    const at = layout.segmentOf[global] as number;
    const segment = layout.segments[at] as S;
    const document = global - (layout.offsetAt[at] as number);
    if (Number.isNaN(segmentFactors[at])) segmentFactors[at] = segmentFactorOf(segment);
    const coverage = Math.pow((matched[global] as number) / conceptTotal, weights.coverage);
    const base = (scores[global] as number) * coverage * (segmentFactors[at] as number) * (segment.deprecated[document] ? weights.deprecated : 1);
    scores[global] = 0;
    matched[global] = 0;
    seen[global] = 0;
    // The name bonus can at most multiply by (1 + nameMatch): skip documents that cannot make the top even so.
    if (base <= 0 || base * (1 + weights.nameMatch) < out.threshold()) continue;
    out.offer(segment, document, base * (1 + weights.nameMatch * nameCoverage(segment.nameTerms[document] ?? [], query.queryTerms)));
  }
}

/** The most a concept can score: its strongest alternative's summed IDF (terms the index lacks count nothing). */
function strongestMatch(concept: QueryConcept, stats: SearchStats): number {
  let strongest = 0;
  for (const alternative of concept.alternatives) {
    let sum = 0;
    for (const term of alternative.terms) {
      const frequency = stats.documentFrequency.get(term);
      if (frequency) sum += inverseDocumentFrequency(stats.documentCount, frequency);
    }
    strongest = Math.max(strongest, sum * alternative.weight);
  }
  return strongest;
}

/**
 * The share of a document name's words that the query asked for; a synonym counts at its weight.
 * Every word counts the same: for tools, the common verbs ("list", "create") are exactly what
 * tells apart a server's list_workspaces from its create_workspace.
 */
function nameCoverage(nameTerms: readonly string[], queryTerms: ReadonlyMap<string, number>): number {
  let covered = 0;
  for (const term of nameTerms) covered += queryTerms.get(term) ?? 0;
  return nameTerms.length > 0 ? covered / nameTerms.length : 0;
}
