import type { GoldPair } from "./gold-set.js";

/** A ranked answer: the tools a ranker returned for a query, best first. */
export type Ranker = (query: string) => readonly { readonly server: string; readonly name: string }[];

export interface RankingMiss {
  readonly id: string;
  readonly query: string;
  readonly expected: string;
  /** The expected tool's rank (1-based), or undefined when it was not returned. */
  readonly rank: number | undefined;
  /** The first three tools returned, as server/tool. */
  readonly got: readonly string[];
}

export interface RankingQuality {
  readonly pairs: number;
  /** Share of pairs whose accepted tool came first, from 0 to 1. */
  readonly top1: number;
  readonly top3: number;
  readonly top5: number;
  /** Mean reciprocal rank of the first accepted tool (0 when not returned). */
  readonly mrr: number;
  /** Pairs whose accepted tool was not first. */
  readonly misses: readonly RankingMiss[];
}

/** Scores a ranker against gold pairs: top-1/3/5 accuracy and MRR. */
export function evaluateRanking(pairs: readonly GoldPair[], rank: Ranker): RankingQuality {
  let top1 = 0;
  let top3 = 0;
  let top5 = 0;
  let reciprocal = 0;
  const misses: RankingMiss[] = [];
  for (const pair of pairs) {
    const results = rank(pair.query);
    const accepted = new Set(pair.expected.map((ref) => `${ref.server}/${ref.tool}`));
    const index = results.findIndex((result) => accepted.has(`${result.server}/${result.name}`));
    const position = index < 0 ? undefined : index + 1;
    if (position !== undefined) {
      reciprocal += 1 / position;
      if (position <= 1) top1++;
      if (position <= 3) top3++;
      if (position <= 5) top5++;
    }
    if (position !== 1) {
      misses.push({
        id: pair.id,
        query: pair.query,
        expected: [...accepted].join(" | "),
        rank: position,
        got: results.slice(0, 3).map((result) => `${result.server}/${result.name}`),
      });
    }
  }
  const count = pairs.length || 1;
  return { pairs: pairs.length, top1: top1 / count, top3: top3 / count, top5: top5 / count, mrr: reciprocal / count, misses };
}
