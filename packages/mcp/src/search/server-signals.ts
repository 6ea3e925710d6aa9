import { inverseDocumentFrequency, type QueryPlan, type SearchStats } from "@thinktank/search";
import type { RankingWeights } from "./search-types.js";
import type { ServerProfileStats } from "./server-profiles.js";
import type { ServerSegment } from "./server-segment.js";

/**
 * How strongly the query points at each server, from 0 to 1 (1 for the best-matching server):
 * BM25 over the server profiles (names, tool names, first sentences). "what's in my outlook
 * inbox" points at the server whose tools keep saying Outlook, though its name is ms-365.
 */
export function serverRelevance(plan: QueryPlan, stats: ServerProfileStats, weights: RankingWeights): Map<string, number> {
  const totals = new Map<string, number>();
  for (const concept of plan.concepts) {
    const best = new Map<string, number>();
    for (const alternative of concept.alternatives) {
      const sums = new Map<string, number>();
      for (const term of alternative.terms) {
        const postings = stats.serverPostings.get(term);
        if (!postings) continue;
        const idf = inverseDocumentFrequency(stats.serverCount, postings.size);
        for (const [server, frequency] of postings) {
          const length = stats.profileLengths.get(server) ?? stats.averageProfileLength;
          const normalized = frequency / (0.25 + (0.75 * length) / stats.averageProfileLength);
          sums.set(server, (sums.get(server) ?? 0) + (idf * normalized) / (weights.k1 + normalized));
        }
      }
      for (const [server, sum] of sums) best.set(server, Math.max(best.get(server) ?? 0, sum * alternative.weight));
    }
    for (const [server, value] of best) totals.set(server, (totals.get(server) ?? 0) + value);
  }
  let max = 0;
  for (const value of totals.values()) max = Math.max(max, value);
  if (max > 0) for (const [server, value] of totals) totals.set(server, value / max);
  return totals;
}

/**
 * Servers the query names outright ("in slack", "gcloud ...", "argo cd"), each with a strength
 * from 0 to 1: how rare the named word is among the other servers' tools. "linear" or "todoist"
 * count fully; "search" or "time", which many tools say, count little.
 */
export function serverMentions(plan: QueryPlan, stats: SearchStats, profiles: ServerProfileStats, segmentOf: (server: string) => ServerSegment | undefined): Map<string, number> {
  const mentions = new Map<string, number>();
  const rarest = inverseDocumentFrequency(stats.documentCount, 0);
  for (const concept of plan.concepts) {
    for (const alternative of concept.alternatives) {
      if (alternative.source === "synonym" || alternative.terms.length !== 1) continue;
      const term = alternative.terms[0] as string;
      const servers = profiles.serverNames.get(term);
      if (!servers) continue;
      let own = 0;
      for (const server of servers) own += segmentOf(server)?.postings.get(term)?.documents.length ?? 0;
      const elsewhere = Math.max(0, (stats.documentFrequency.get(term) ?? 0) - own);
      const strength = inverseDocumentFrequency(stats.documentCount, elsewhere) / rarest;
      for (const server of servers) mentions.set(server, Math.max(mentions.get(server) ?? 0, strength));
    }
  }
  return mentions;
}
