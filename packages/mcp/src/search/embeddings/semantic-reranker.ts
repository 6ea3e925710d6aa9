import type { ToolSearchOptions, ToolSearchResult } from "../search-types.js";
import type { ToolSearchIndex } from "../tool-search-index.js";
import { cosineSimilarity, type Embedder } from "./embedder.js";

export interface SemanticRerankerOptions {
  readonly embedder: Embedder;
  /** How many candidates each stage contributes: the keyword top and the nearest by meaning. @default 30 */
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

interface Candidate {
  readonly server: string;
  readonly name: string;
  keyword?: ToolSearchResult;
  similarity: number;
}

/**
 * The optional semantic stage of search_tools. Candidates are the keyword top and the tools
 * nearest to the query by embedding (so "how long is the drive" can find a distance tool that
 * shares no word with it); each candidate's score blends its keyword score and its similarity.
 * Tool vectors are embedded once and cached. A failing embeddings provider costs only the
 * semantic stage: the keyword results come back unchanged, with the error.
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
    const keyword = index.search(query, { ...options, limit: Math.max(limit, Math.min(this.#candidates, index.maxLimit)) });
    if (query.trim() === "") return { results: keyword.slice(0, limit), semantic: "applied" };
    try {
      const tools = index.listTools(options.server).map((tool) => ({ ...tool, key: this.#keyOf(index, tool.server, tool.name) }));
      const missing = tools.filter((tool) => !this.#vectors.has(tool.key));
      const vectors = await this.#embedder.embed([query, ...missing.map((tool) => tool.key.split("\u0000")[2] as string)]);
      missing.forEach((tool, i) => this.#remember(tool.key, vectors[i + 1] ?? []));
      const queryVector = vectors[0] ?? [];

      const candidates = new Map<string, Candidate>();
      const nearest = tools
        .map((tool) => ({ tool, similarity: cosineSimilarity(queryVector, this.#vectors.get(tool.key) ?? []) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, this.#candidates);
      for (const { tool, similarity } of nearest) candidates.set(tool.key, { server: tool.server, name: tool.name, similarity });
      for (const result of keyword) {
        const key = this.#keyOf(index, result.server, result.name);
        const candidate = candidates.get(key) ?? { server: result.server, name: result.name, similarity: cosineSimilarity(queryVector, this.#vectors.get(key) ?? []) };
        candidate.keyword = result;
        candidates.set(key, candidate);
      }

      const topKeyword = keyword[0]?.score || 1;
      const topSimilarity = Math.max(0, ...[...candidates.values()].map((c) => c.similarity)) || 1;
      const ranked = [...candidates.values()]
        .map((candidate) => ({
          candidate,
          score: (1 - this.#weight) * ((candidate.keyword?.score ?? 0) / topKeyword) + this.#weight * (candidate.similarity / topSimilarity),
        }))
        .sort((a, b) => b.score - a.score || compareNames(a.candidate, b.candidate))
        .slice(0, limit);
      // Candidates found by meaning alone are fetched at the requested detail.
      const results = ranked.map(({ candidate, score }) => {
        const base = candidate.keyword ?? index.describeTool(candidate.server, candidate.name, options.detail);
        return { ...(base ?? { server: candidate.server, name: candidate.name }), score: Math.round(score * 1000) / 1000 };
      });
      return { results, semantic: "applied" };
    } catch (error) {
      return { results: keyword.slice(0, limit), semantic: "failed", error: (error as Error).message };
    }
  }

  /** The cache key of a tool: server, name and the text that was embedded (a changed description is re-embedded). */
  #keyOf(index: ToolSearchIndex, server: string, name: string): string {
    return `${server}\u0000${name}\u0000${index.toolText(server, name) ?? name}`;
  }

  #remember(key: string, vector: number[]): void {
    if (this.#vectors.size >= this.#cacheSize) {
      const oldest = this.#vectors.keys().next().value;
      if (oldest !== undefined) this.#vectors.delete(oldest);
    }
    this.#vectors.set(key, vector);
  }
}

function compareNames(a: Candidate, b: Candidate): number {
  if (a.server !== b.server) return a.server < b.server ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
