import { updateSet } from "@thinktank/search";
import type { ServerSegment } from "./server-segment.js";

/** What the server signals need about every indexed server, kept up to date as servers come and go. */
export interface ServerProfileStats {
  readonly serverCount: number;
  /** term → server → frequency of the term in that server's profile. */
  readonly serverPostings: Lookup<ReadonlyMap<string, number>>;
  /** server → length of its profile, in terms. */
  readonly profileLengths: Lookup<number>;
  readonly averageProfileLength: number;
  /** term → the servers whose own names contain it. */
  readonly serverNames: Lookup<ReadonlySet<string>>;
}

/** A read-only map as the signals read it (by key only). */
export type Lookup<V> = Pick<ReadonlyMap<string, V>, "get">;

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

/**
 * Two sets of server profiles read as one (the shared index's and one caller's own servers'), for
 * a search over both; neither is changed. The names never overlap (a caller's own are apart).
 */
export function layerProfiles(shared: ServerProfileStats, own: ServerProfileStats): ServerProfileStats {
  if (own.serverCount === 0) return shared;
  const serverCount = shared.serverCount + own.serverCount;
  const lengthSum = shared.averageProfileLength * shared.serverCount + own.averageProfileLength * own.serverCount;
  const merged = <V>(a: V | undefined, b: V | undefined, join: (a: V, b: V) => V): V | undefined => (a === undefined ? b : b === undefined ? a : join(a, b));
  return {
    serverCount,
    serverPostings: { get: (term) => merged(shared.serverPostings.get(term), own.serverPostings.get(term), (a, b) => new Map([...a, ...b])) },
    profileLengths: { get: (server) => own.profileLengths.get(server) ?? shared.profileLengths.get(server) },
    averageProfileLength: serverCount ? lengthSum / serverCount : 1,
    serverNames: { get: (term) => merged(shared.serverNames.get(term), own.serverNames.get(term), (a, b) => new Set([...a, ...b])) },
  };
}
