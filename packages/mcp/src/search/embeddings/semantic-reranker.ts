import type { ToolSearchOptions, ToolSearchResult } from "../search-types.js";
import type { ToolSearchIndex } from "../tool-search-index.js";
import { cosineSimilarity, type Embedder } from "./embedder.js";

export interface SemanticRerankerOptions {
  readonly embedder: Embedder;
  /** How many keyword results are re-ranked by meaning. @default 30 */
  readonly candidates?: number;
  /** Share of the final score that comes from meaning; the rest comes from the keyword score. @default 0.5 */
  readonly weight?: number;
  /** Tool vectors kept in memory between searches. @default 20000 */
  readonly cacheSize?: number;
}

/** A semantic search's results, and whether the semantic stage ran (keyword order is kept when it fails). */
export interface SemanticSearchOutcome {
  readonly results: ToolSearchResult[];
  readonly semantic: "applied" | "failed";
  readonly error?: string;
}

/**
 * The optional semantic stage of search_tools: re-ranks the keyword search's top candidates by
 * the cosine similarity of query and tool embeddings. Keyword search stays the base (it picks the
 * candidates and keeps a share of the score), and a failing embeddings provider only costs the
 * re-ranking, never the search.
 */
export class SemanticReranker {
  readonly #embedder: Embedder;
  readonly #candidates: number;
  readonly #weight: number;
  readonly #cacheSize: number;
  readonly #vectors = new Map<string, number[]>();

  constructor(options: SemanticRerankerOptions) {
    this.#embedder = options.embedder;
    this.#candidates = options.candidates ?? 30;
    this.#weight = Math.min(1, Math.max(0, options.weight ?? 0.5));
    this.#cacheSize = options.cacheSize ?? 20_000;
  }

  async search(index: ToolSearchIndex, query: string, options: ToolSearchOptions = {}): Promise<SemanticSearchOutcome> {
    const limit = index.effectiveLimit(options.limit);
    const candidates = index.search(query, { ...options, limit: Math.max(limit, Math.min(this.#candidates, index.maxLimit)) });
    if (candidates.length < 2 || query.trim() === "") return { results: candidates.slice(0, limit), semantic: "applied" };
    try {
      const texts = candidates.map((result) => index.toolText(result.server, result.name) ?? result.name);
      const keys = candidates.map((result, i) => `${result.server}\u0000${result.name}\u0000${texts[i]}`);
      const missing = keys.map((key, i) => ({ key, text: texts[i] as string })).filter(({ key }) => !this.#vectors.has(key));
      const fresh = await this.#embedder.embed([query, ...missing.map((m) => m.text)]);
      const queryVector = fresh[0] ?? [];
      missing.forEach((m, i) => this.#remember(m.key, fresh[i + 1] ?? []));
      const similarities = keys.map((key) => cosineSimilarity(queryVector, this.#vectors.get(key) ?? []));
      const topKeyword = candidates[0]?.score || 1;
      const topSimilarity = Math.max(...similarities, 0) || 1;
      const rescored = candidates.map((result, i) => ({
        result,
        score: (1 - this.#weight) * (result.score / topKeyword) + this.#weight * ((similarities[i] as number) / topSimilarity),
      }));
      rescored.sort((a, b) => b.score - a.score || (a.result.server < b.result.server ? -1 : a.result.server > b.result.server ? 1 : a.result.name < b.result.name ? -1 : 1));
      return { results: rescored.slice(0, limit).map(({ result, score }) => ({ ...result, score: Math.round(score * 1000) / 1000 })), semantic: "applied" };
    } catch (error) {
      return { results: candidates.slice(0, limit), semantic: "failed", error: (error as Error).message };
    }
  }

  #remember(key: string, vector: number[]): void {
    if (this.#vectors.size >= this.#cacheSize) {
      const oldest = this.#vectors.keys().next().value;
      if (oldest !== undefined) this.#vectors.delete(oldest);
    }
    this.#vectors.set(key, vector);
  }
}
