import type { Segment } from "./document-segment.js";

/** A document of a segment (by index) and its score. */
export interface ScoredDocument<S extends Segment = Segment> {
  readonly segment: S;
  readonly document: number;
  readonly score: number;
}

/** Keeps the best `k` documents offered, best first; equal scores go by segment key, then document id. */
export class TopDocuments<S extends Segment = Segment> {
  readonly #k: number;
  readonly #items: ScoredDocument<S>[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  /** The score a document must beat to be kept (0 until `k` documents are held). */
  threshold(): number {
    return this.#items.length === this.#k ? (this.#items[this.#items.length - 1] as ScoredDocument<S>).score : 0;
  }

  offer(segment: S, document: number, score: number): void {
    const items = this.#items;
    if (items.length === this.#k && compareScored(score, segment, document, items[items.length - 1] as ScoredDocument<S>) >= 0) return;
    let at = items.length;
    while (at > 0 && compareScored(score, segment, document, items[at - 1] as ScoredDocument<S>) < 0) at--;
    items.splice(at, 0, { segment, document, score });
    if (items.length > this.#k) items.pop();
  }

  results(): ScoredDocument<S>[] {
    return [...this.#items];
  }
}

/** Orders a scored document against another: higher score first, then by segment key, then by document id. */
export function compareScored(score: number, segment: Segment, document: number, other: ScoredDocument): number {
  if (score !== other.score) return other.score - score;
  if (segment.key !== other.segment.key) return segment.key < other.segment.key ? -1 : 1;
  const id = segment.ids[document] ?? "";
  const otherId = other.segment.ids[other.document] ?? "";
  return id < otherId ? -1 : id > otherId ? 1 : 0;
}
