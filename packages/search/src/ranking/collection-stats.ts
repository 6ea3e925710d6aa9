import type { Segment } from "./document-segment.js";
import type { SearchStats } from "./search-stats.js";

/**
 * The collection-wide figures BM25 needs (document frequencies, field lengths), kept exact as
 * segments are added and removed, so no change ever re-reads the other segments.
 */
export class CollectionStats<S extends Segment = Segment> {
  readonly #fieldCount: number;
  readonly #documentFrequency = new Map<string, number>();
  readonly #fieldLengthSums: Float64Array;
  readonly #segmentsWithTerm = new Map<string, Set<S>>();
  #documentCount = 0;
  #segmentCount = 0;

  constructor(fieldCount: number) {
    this.#fieldCount = fieldCount;
    this.#fieldLengthSums = new Float64Array(fieldCount);
  }

  get documentCount(): number {
    return this.#documentCount;
  }

  /** Whether any document contains the term. */
  has(term: string): boolean {
    return this.#documentFrequency.has(term);
  }

  /** The segments whose documents contain the term. */
  segmentsWith(term: string): ReadonlySet<S> | undefined {
    return this.#segmentsWithTerm.get(term);
  }

  add(segment: S): void {
    this.#apply(segment, 1);
  }

  remove(segment: S): void {
    this.#apply(segment, -1);
  }

  /** Every term with the number of documents that contain it. */
  terms(): IterableIterator<[string, number]> {
    return this.#documentFrequency.entries();
  }

  /** A snapshot for one search (the maps are shared, the averages computed now). */
  snapshot(): SearchStats {
    const averageFieldLengths = new Float64Array(this.#fieldCount);
    for (let f = 0; f < this.#fieldCount; f++) averageFieldLengths[f] = this.#documentCount ? (this.#fieldLengthSums[f] as number) / this.#documentCount : 0;
    return { documentCount: this.#documentCount, segmentCount: this.#segmentCount, documentFrequency: this.#documentFrequency, averageFieldLengths };
  }

  #apply(segment: S, sign: 1 | -1): void {
    this.#documentCount += sign * segment.ids.length;
    this.#segmentCount += sign;
    for (const [term, postings] of segment.postings) {
      const next = (this.#documentFrequency.get(term) ?? 0) + sign * postings.documents.length;
      if (next > 0) this.#documentFrequency.set(term, next);
      else this.#documentFrequency.delete(term);
      updateSet(this.#segmentsWithTerm, term, segment, sign);
    }
    for (let i = 0; i < segment.fieldLengths.length; i++) {
      const field = i % this.#fieldCount;
      this.#fieldLengthSums[field] = (this.#fieldLengthSums[field] as number) + sign * (segment.fieldLengths[i] as number);
    }
  }
}

/** Adds a member to (sign 1) or removes it from (sign -1) the set under a key, dropping empty sets. */
export function updateSet<T>(map: Map<string, Set<T>>, key: string, member: T, sign: 1 | -1): void {
  let members = map.get(key);
  if (sign > 0) {
    if (!members) map.set(key, (members = new Set()));
    members.add(member);
  } else if (members) {
    members.delete(member);
    if (members.size === 0) map.delete(key);
  }
}
