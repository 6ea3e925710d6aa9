/** One (request → accepted answers) pair: `accepted` holds the keys of the documents that answer it, the intended one first. */
export interface RankingPair {
  readonly id: string;
  readonly query: string;
  readonly accepted: readonly string[];
}

/** A ranked answer: the keys of the documents a ranker returned for a query, best first. */
export type Ranker = (query: string) => readonly string[];

export interface RankingMiss {
  readonly id: string;
  readonly query: string;
  /** The accepted keys, joined with " | ". */
  readonly expected: string;
  /** The first accepted document's rank (1-based), or undefined when it was not returned. */
  readonly rank: number | undefined;
  /** The first three keys returned. */
  readonly got: readonly string[];
}

export interface RankingQuality {
  readonly pairs: number;
  /** Share of pairs whose accepted document came first, from 0 to 1. */
  readonly top1: number;
  readonly top3: number;
  readonly top5: number;
  /** Mean reciprocal rank of the first accepted document (0 when not returned). */
  readonly mrr: number;
  /** Pairs whose accepted document was not first. */
  readonly misses: readonly RankingMiss[];
}

/** Scores a ranker against gold pairs: top-1/3/5 accuracy and MRR. */
export function evaluateRanking(pairs: readonly RankingPair[], rank: Ranker): RankingQuality {
  let top1 = 0;
  let top3 = 0;
  let top5 = 0;
  let reciprocal = 0;
  const misses: RankingMiss[] = [];
  for (const pair of pairs) {
    const results = rank(pair.query);
    const accepted = new Set(pair.accepted);
    const index = results.findIndex((key) => accepted.has(key));
    const position = index < 0 ? undefined : index + 1;
    if (position !== undefined) {
      reciprocal += 1 / position;
      if (position <= 1) top1++;
      if (position <= 3) top3++;
      if (position <= 5) top5++;
    }
    if (position !== 1) {
      misses.push({ id: pair.id, query: pair.query, expected: [...accepted].join(" | "), rank: position, got: results.slice(0, 3) });
    }
  }
  const count = pairs.length || 1;
  return { pairs: pairs.length, top1: top1 / count, top3: top3 / count, top5: top5 / count, mrr: reciprocal / count, misses };
}
