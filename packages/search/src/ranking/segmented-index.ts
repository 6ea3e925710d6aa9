import type { QueryPlan } from "../query/query-plan.js";
import { CollectionStats } from "./collection-stats.js";
import type { Segment } from "./document-segment.js";
import { gatherPostings, layoutDocuments, prepareQuery, scoreDocuments, ScoringScratch, SegmentWeights, type DocumentLayout, type TermPostings } from "./score-documents.js";
import type { SearchStats } from "./search-stats.js";
import type { ScoringWeights } from "./scoring-weights.js";
import { TopDocuments, type ScoredDocument } from "./top-documents.js";

export interface SegmentedIndexOptions {
  /** The field names, in the order of `DocumentTerms.fields`. */
  readonly fields: readonly string[];
  readonly weights: ScoringWeights;
}

/** What `SegmentedIndex.top` scores. */
export interface TopOptions<S extends Segment> {
  /** How many documents to return. */
  readonly depth: number;
  /** Only these segments (default: all, which uses the index's cached global layout and postings). */
  readonly within?: readonly S[];
  /** A factor on every score of a segment (for tools: how well the query matches the server). @default 1 */
  readonly segmentFactor?: (segment: S) => number;
  /**
   * Segments kept outside the index (one caller's own, say a user's servers), scored as if they
   * were in it: the statistics count them and, without `within`, their documents compete with the
   * index's. Nothing about them is kept, so the index stays the same for every other search. @default none
   */
  readonly extra?: readonly S[];
}

/**
 * The first stage of every search: BM25F over segments of documents, with the collection
 * statistics, the per-segment term weights and the global postings kept between searches and
 * invalidated only by what a change touches. Callers build segments (`buildSegment`, extended with
 * their own data), plan the query (`planQuery`) and present the results.
 */
export class SegmentedIndex<S extends Segment = Segment> {
  readonly #fields: readonly string[];
  readonly #weights: ScoringWeights;
  readonly #segments = new Map<string, S>();
  readonly #collection: CollectionStats<S>;
  readonly #termWeights = new Map<string, { version: number; weights: SegmentWeights }>();
  /** Term weights of segments outside the index (TopOptions.extra), for as long as the caller keeps them. */
  readonly #outsideWeights = new WeakMap<S, { version: number; weights: SegmentWeights }>();
  /** The average field lengths the cached term weights were computed with. */
  #referenceAverages: Float64Array | undefined;
  readonly #scratch = new ScoringScratch();
  /** All segments' documents in one numbering; rebuilt on the next search after a change. */
  #layout: DocumentLayout<S> | undefined;
  /** Per term, its postings over the whole layout (gathered on first use, dropped on any change). */
  readonly #globalPostings = new Map<string, TermPostings | null>();
  /** Bumped when the average field lengths drift, so cached term weights are recomputed. */
  #version = 0;

  constructor(options: SegmentedIndexOptions) {
    this.#fields = options.fields;
    this.#weights = options.weights;
    this.#collection = new CollectionStats<S>(options.fields.length);
  }

  get documentCount(): number {
    return this.#collection.documentCount;
  }

  /** The segment under a key, or undefined. */
  segment(key: string): S | undefined {
    return this.#segments.get(key);
  }

  /** Every segment, in the order first added. */
  segments(): S[] {
    return [...this.#segments.values()];
  }

  /** Whether any document contains the term (the query plan tries compounds only for known terms). */
  has(term: string): boolean {
    return this.#collection.has(term);
  }

  /** Every term of the index with its document frequency. */
  terms(): IterableIterator<[string, number]> {
    return this.#collection.terms();
  }

  /** The collection statistics now (document frequencies, average field lengths), counting `extra` segments too. */
  stats(extra: readonly S[] = []): SearchStats {
    const stats = this.#collection.snapshot();
    return extra.length === 0 ? stats : withSegments(stats, extra, this.#fields.length);
  }

  /** Puts a segment in, replacing the one under the same key; returns the replaced one. */
  put(segment: S): S | undefined {
    const previous = this.#segments.get(segment.key);
    if (previous) this.#account(previous, -1);
    this.#segments.set(segment.key, segment);
    this.#account(segment, 1);
    return previous;
  }

  /** Takes a segment out; returns it, or undefined when there was none under the key. */
  remove(key: string): S | undefined {
    const segment = this.#segments.get(key);
    if (!segment) return undefined;
    this.#account(segment, -1);
    this.#segments.delete(key);
    return segment;
  }

  /** The `depth` best documents for a planned query, best first (equal scores by segment key, then id). */
  top(plan: QueryPlan, options: TopOptions<S>): ScoredDocument<S>[] {
    if (plan.concepts.length === 0) return [];
    const shared = this.#collection.snapshot();
    // Only the index's own segments move the reference averages: a caller's extra segments never
    // invalidate what every other search reuses.
    this.#checkDrift(shared);
    const extra = options.extra ?? [];
    const prepared = prepareQuery(plan, extra.length === 0 ? shared : withSegments(shared, extra, this.#fields.length), this.#weights);
    const global = options.within === undefined;
    const segments = options.within ?? [...this.#segments.values()];
    const layout = global ? (this.#layout ??= layoutDocuments(segments)) : layoutDocuments(segments);
    const top = new TopDocuments<S>(options.depth);
    const factor = options.segmentFactor ?? (() => 1);
    scoreDocuments(
      prepared,
      layout,
      (term) => {
        if (!global) return gatherPostings(term, layout, segments, (segment) => this.#termWeightsOf(segment));
        let postings = this.#globalPostings.get(term);
        if (postings === undefined) {
          postings = gatherPostings(term, layout, this.#collection.segmentsWith(term) ?? [], (segment) => this.#termWeightsOf(segment)) ?? null;
          this.#globalPostings.set(term, postings);
        }
        return postings ?? undefined;
      },
      factor,
      this.#weights,
      this.#scratch,
      top,
    );
    if (global && extra.length > 0) {
      const outside = layoutDocuments(extra);
      scoreDocuments(prepared, outside, (term) => gatherPostings(term, outside, extra, (segment) => this.#termWeightsOf(segment)), factor, this.#weights, this.#scratch, top);
    }
    return top.results();
  }

  /**
   * The segment's cached term weights. They depend on the average field lengths, which barely move
   * when one segment of many changes; they are recomputed (lazily, per segment) only once an
   * average drifts more than 5% from the one they were computed with.
   */
  #termWeightsOf(segment: S): SegmentWeights {
    const own = this.#segments.get(segment.key) === segment;
    const cached = own ? this.#termWeights.get(segment.key) : this.#outsideWeights.get(segment);
    if (cached?.version === this.#version) return cached.weights;
    const weights = new SegmentWeights(segment, this.#fields, this.#referenceAverages as Float64Array, this.#weights);
    if (own) this.#termWeights.set(segment.key, { version: this.#version, weights });
    else this.#outsideWeights.set(segment, { version: this.#version, weights });
    return weights;
  }

  #checkDrift(stats: SearchStats): void {
    const reference = this.#referenceAverages;
    const drifted = !reference || stats.averageFieldLengths.some((average, f) => Math.abs(average - (reference[f] as number)) > 0.05 * Math.max(average, 1e-9));
    if (drifted) {
      this.#referenceAverages = Float64Array.from(stats.averageFieldLengths);
      this.#version++;
      this.#globalPostings.clear();
    }
  }

  /** Adds (sign 1) or subtracts (sign -1) a segment's share of the collection, dropping what depended on it. */
  #account(segment: S, sign: 1 | -1): void {
    this.#termWeights.delete(segment.key);
    this.#layout = undefined;
    this.#globalPostings.clear();
    if (sign > 0) this.#collection.add(segment);
    else this.#collection.remove(segment);
  }
}

/** The statistics of a collection with some segments added (for a search over the index plus a caller's own segments). */
function withSegments(stats: SearchStats, extra: readonly Segment[], fieldCount: number): SearchStats {
  let added = 0;
  const sums = new Float64Array(fieldCount);
  for (const segment of extra) {
    added += segment.ids.length;
    for (let i = 0; i < segment.fieldLengths.length; i++) sums[i % fieldCount] = (sums[i % fieldCount] as number) + (segment.fieldLengths[i] as number);
  }
  const documentCount = stats.documentCount + added;
  const averageFieldLengths = new Float64Array(fieldCount);
  for (let f = 0; f < fieldCount; f++) averageFieldLengths[f] = documentCount ? ((stats.averageFieldLengths[f] as number) * stats.documentCount + (sums[f] as number)) / documentCount : 0;
  const base = stats.documentFrequency;
  const documentFrequency = {
    get(term: string): number | undefined {
      let count = base.get(term) ?? 0;
      for (const segment of extra) count += segment.postings.get(term)?.documents.length ?? 0;
      return count === 0 ? undefined : count;
    },
  };
  return { documentCount, segmentCount: stats.segmentCount + extra.length, documentFrequency, averageFieldLengths };
}
