import { evaluateRanking, type RankingQuality } from "@thinktank/search";
import type { GoldPair } from "./gold-set.js";

/** A ranked answer: the tools a ranker returned for a query, best first. */
export type ToolRanker = (query: string) => readonly { readonly server: string; readonly name: string }[];

/** Scores a tool ranker against gold pairs (the engine's `evaluateRanking`, with tools keyed as server/tool). */
export function evaluateToolRanking(pairs: readonly GoldPair[], rank: ToolRanker): RankingQuality {
  const accepted = pairs.map((pair) => ({ id: pair.id, query: pair.query, accepted: pair.expected.map((ref) => `${ref.server}/${ref.tool}`) }));
  return evaluateRanking(accepted, (query) => rank(query).map((result) => `${result.server}/${result.name}`));
}
