import type { CatalogServer } from "../catalog/catalog-types.js";
import { inverseDocumentFrequency } from "./search-stats.js";

/**
 * The baseline every quality figure is measured against: textbook BM25 (k1 1.2, b 0.75) over one
 * text per tool (server name, tool name, description), lowercased and split on anything that is
 * not a letter or digit. No identifier splitting, stemming, stop words, synonyms or field weights.
 */
export class PlainBm25Index {
  readonly #tools: { server: string; name: string; length: number; frequencies: Map<string, number> }[] = [];
  readonly #documentFrequency = new Map<string, number>();
  #totalLength = 0;

  constructor(servers: readonly CatalogServer[]) {
    for (const server of servers) {
      for (const tool of server.tools) {
        const terms = plainTerms(`${server.server} ${tool.name} ${tool.description ?? ""}`);
        const frequencies = new Map<string, number>();
        for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
        for (const term of frequencies.keys()) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
        this.#tools.push({ server: server.server, name: tool.name, length: terms.length, frequencies });
        this.#totalLength += terms.length;
      }
    }
  }

  search(query: string, limit = 10): { server: string; name: string; score: number }[] {
    const terms = [...new Set(plainTerms(query))];
    const average = this.#totalLength / (this.#tools.length || 1);
    const results: { server: string; name: string; score: number }[] = [];
    for (const tool of this.#tools) {
      let score = 0;
      for (const term of terms) {
        const tf = tool.frequencies.get(term);
        if (!tf) continue;
        const idf = inverseDocumentFrequency(this.#tools.length, this.#documentFrequency.get(term) ?? 0);
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * tool.length) / average));
      }
      if (score > 0) results.push({ server: tool.server, name: tool.name, score });
    }
    results.sort((a, b) => b.score - a.score || (a.server < b.server ? -1 : a.server > b.server ? 1 : a.name < b.name ? -1 : 1));
    return results.slice(0, limit);
  }
}

function plainTerms(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}
