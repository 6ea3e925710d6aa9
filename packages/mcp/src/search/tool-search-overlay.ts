import { ServerProfiles, type ServerProfileStats } from "./server-profiles.js";
import type { ServerSegment } from "./server-segment.js";
import type { WrapperPathResolver } from "./search-types.js";

/**
 * Servers one caller sees beside a shared ToolSearchIndex (a user's own servers), indexed as the
 * index indexes its own but kept apart: `index.search(query, { overlay })` ranks their tools with
 * the shared ones as if they were in the index (the statistics count them), and the shared index
 * is never touched, so it stays one for everyone. Made by `ToolSearchIndex.overlay(servers,
 * previous)`, which keeps the segments of servers whose tools did not change.
 */
export class ToolSearchOverlay {
  readonly #segments: ReadonlyMap<string, ServerSegment>;
  readonly #profiles = new ServerProfiles();
  readonly #wrapperPath: WrapperPathResolver | undefined;

  /** @internal made by ToolSearchIndex.overlay */
  constructor(segments: readonly ServerSegment[], wrapperPath: WrapperPathResolver | undefined) {
    this.#segments = new Map(segments.map((segment) => [segment.key, segment]));
    for (const segment of segments) this.#profiles.add(segment);
    this.#wrapperPath = wrapperPath;
  }

  /** Names of the servers it holds, sorted. */
  serverNames(): string[] {
    return [...this.#segments.keys()].sort();
  }

  /** Number of tools it holds. */
  get toolCount(): number {
    let count = 0;
    for (const segment of this.#segments.values()) count += segment.ids.length;
    return count;
  }

  /** @internal */
  segment(server: string): ServerSegment | undefined {
    return this.#segments.get(server);
  }

  /** @internal */
  segments(): ServerSegment[] {
    return [...this.#segments.values()];
  }

  /** @internal whether any of its tools contains the term */
  hasTerm(term: string): boolean {
    for (const segment of this.#segments.values()) if (segment.postings.has(term)) return true;
    return false;
  }

  /** @internal */
  profiles(): ServerProfileStats {
    return this.#profiles.snapshot();
  }

  /** @internal where its tools' wrappers are, when it says */
  wrapperPath(server: string, tool: string): string | undefined {
    return this.#wrapperPath?.(server, tool);
  }
}
