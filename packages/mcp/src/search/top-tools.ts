import type { ServerSegment } from "./server-segment.js";

/** A tool of a server segment (by index) and its score. */
export interface ScoredTool {
  readonly segment: ServerSegment;
  readonly tool: number;
  readonly score: number;
}

/** Keeps the best `k` tools offered, best first; equal scores go by server, then tool name. */
export class TopTools {
  readonly #k: number;
  readonly #items: ScoredTool[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  /** The score a tool must beat to be kept (0 until `k` tools are held). */
  threshold(): number {
    return this.#items.length === this.#k ? (this.#items[this.#items.length - 1] as ScoredTool).score : 0;
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

/** Orders a scored tool against another: higher score first, then by server, then by tool name. */
export function compareScored(score: number, segment: ServerSegment, tool: number, other: ScoredTool): number {
  if (score !== other.score) return other.score - score;
  if (segment.server !== other.segment.server) return segment.server < other.segment.server ? -1 : 1;
  const name = segment.tools[tool]?.name ?? "";
  const otherName = other.segment.tools[other.tool]?.name ?? "";
  return name < otherName ? -1 : name > otherName ? 1 : 0;
}
