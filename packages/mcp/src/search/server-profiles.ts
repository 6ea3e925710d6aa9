import { updateSet } from "@thinktank/search";
import type { ServerSegment } from "./server-segment.js";

/** What the server signals need about every indexed server, kept up to date as servers come and go. */
export interface ServerProfileStats {
  readonly serverCount: number;
  /** term → server → frequency of the term in that server's profile. */
  readonly serverPostings: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** server → length of its profile, in terms. */
  readonly profileLengths: ReadonlyMap<string, number>;
  readonly averageProfileLength: number;
  /** term → the servers whose own names contain it. */
  readonly serverNames: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The servers as documents of their own (names, tool names, first sentences) and the words that
 * name them, kept exact as servers are added and removed (beside the engine's collection
 * statistics of the tools), for `serverRelevance` and `serverMentions`.
 */
export class ServerProfiles {
  readonly #serverPostings = new Map<string, Map<string, number>>();
  readonly #profileLengths = new Map<string, number>();
  readonly #serverNames = new Map<string, Set<string>>();
  #serverCount = 0;
  #profileLengthSum = 0;

  add(segment: ServerSegment): void {
    this.#apply(segment, 1);
  }

  remove(segment: ServerSegment): void {
    this.#apply(segment, -1);
  }

  /** A snapshot for one search (the maps are shared, the average computed now). */
  snapshot(): ServerProfileStats {
    return {
      serverCount: this.#serverCount,
      serverPostings: this.#serverPostings,
      profileLengths: this.#profileLengths,
      averageProfileLength: this.#serverCount ? this.#profileLengthSum / this.#serverCount : 1,
      serverNames: this.#serverNames,
    };
  }

  #apply(segment: ServerSegment, sign: 1 | -1): void {
    this.#serverCount += sign;
    for (const [term, frequency] of segment.profile) {
      let servers = this.#serverPostings.get(term);
      if (sign > 0) {
        if (!servers) this.#serverPostings.set(term, (servers = new Map()));
        servers.set(segment.key, frequency);
      } else if (servers) {
        servers.delete(segment.key);
        if (servers.size === 0) this.#serverPostings.delete(term);
      }
    }
    for (const term of segment.nameOfServer) updateSet(this.#serverNames, term, segment.key, sign);
    this.#profileLengthSum += sign * segment.profileLength;
    if (sign > 0) this.#profileLengths.set(segment.key, segment.profileLength);
    else this.#profileLengths.delete(segment.key);
  }
}
