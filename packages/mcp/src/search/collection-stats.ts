import type { SearchStats } from "./search-stats.js";
import { fieldCount, type ServerSegment } from "./server-segment.js";

/**
 * The collection-wide figures BM25 needs (document frequencies, field lengths, server profiles),
 * kept exact as servers are added and removed, so no change ever re-reads the other servers.
 */
export class CollectionStats {
  readonly #documentFrequency = new Map<string, number>();
  readonly #fieldLengthSums = new Float64Array(fieldCount);
  readonly #serverPostings = new Map<string, Map<string, number>>();
  readonly #profileLengths = new Map<string, number>();
  readonly #serverNames = new Map<string, Set<string>>();
  readonly #segmentsWithTerm = new Map<string, Set<ServerSegment>>();
  #toolCount = 0;
  #serverCount = 0;
  #profileLengthSum = 0;

  get toolCount(): number {
    return this.#toolCount;
  }

  /** Whether any tool contains the term. */
  has(term: string): boolean {
    return this.#documentFrequency.has(term);
  }

  /** The servers whose tools contain the term. */
  segmentsWith(term: string): ReadonlySet<ServerSegment> | undefined {
    return this.#segmentsWithTerm.get(term);
  }

  add(segment: ServerSegment): void {
    this.#apply(segment, 1);
  }

  remove(segment: ServerSegment): void {
    this.#apply(segment, -1);
  }

  /** A snapshot for one search (the maps are shared, the averages computed now). */
  snapshot(): SearchStats {
    const averageFieldLengths = new Float64Array(fieldCount);
    for (let f = 0; f < fieldCount; f++) averageFieldLengths[f] = this.#toolCount ? (this.#fieldLengthSums[f] as number) / this.#toolCount : 0;
    return {
      toolCount: this.#toolCount,
      documentFrequency: this.#documentFrequency,
      averageFieldLengths,
      serverCount: this.#serverCount,
      serverPostings: this.#serverPostings,
      profileLengths: this.#profileLengths,
      averageProfileLength: this.#serverCount ? this.#profileLengthSum / this.#serverCount : 1,
      serverNames: this.#serverNames,
    };
  }

  #apply(segment: ServerSegment, sign: 1 | -1): void {
    this.#toolCount += sign * segment.tools.length;
    this.#serverCount += sign;
    for (const [term, postings] of segment.postings) {
      const next = (this.#documentFrequency.get(term) ?? 0) + sign * postings.tools.length;
      if (next > 0) this.#documentFrequency.set(term, next);
      else this.#documentFrequency.delete(term);
      updateSet(this.#segmentsWithTerm, term, segment, sign);
    }
    for (let i = 0; i < segment.fieldLengths.length; i++) {
      const field = i % fieldCount;
      this.#fieldLengthSums[field] = (this.#fieldLengthSums[field] as number) + sign * (segment.fieldLengths[i] as number);
    }
    for (const [term, frequency] of segment.profile) {
      let servers = this.#serverPostings.get(term);
      if (sign > 0) {
        if (!servers) this.#serverPostings.set(term, (servers = new Map()));
        servers.set(segment.server, frequency);
      } else if (servers) {
        servers.delete(segment.server);
        if (servers.size === 0) this.#serverPostings.delete(term);
      }
    }
    for (const term of segment.nameOfServer) updateSet(this.#serverNames, term, segment.server, sign);
    this.#profileLengthSum += sign * segment.profileLength;
    if (sign > 0) this.#profileLengths.set(segment.server, segment.profileLength);
    else this.#profileLengths.delete(segment.server);
  }
}

/** Adds a member to (sign 1) or removes it from (sign -1) the set under a key, dropping empty sets. */
function updateSet<T>(map: Map<string, Set<T>>, key: string, member: T, sign: 1 | -1): void {
  let members = map.get(key);
  if (sign > 0) {
    if (!members) map.set(key, (members = new Set()));
    members.add(member);
  } else if (members) {
    members.delete(member);
    if (members.size === 0) map.delete(key);
  }
}
