import { SemanticStage, type SemanticStageOptions } from "@thinktank/search";
import type { ToolSearchOptions, ToolSearchResult } from "../search-types.js";
import type { ToolSearchIndex } from "../tool-search-index.js";

export type SemanticRerankerOptions = SemanticStageOptions;

/** A semantic search's results, and whether the semantic stage ran (keyword order is kept when it fails). */
export interface SemanticSearchOutcome {
  readonly results: ToolSearchResult[];
  readonly semantic: "applied" | "failed";
  readonly error?: string;
}

/**
 * The optional semantic stage of search_tools: the engine's `SemanticStage` over the tool index
 * (each tool embedded as server, name, title and description). A failing embeddings provider
 * costs only the semantic stage: the keyword results come back unchanged, with the error.
 */
export class SemanticReranker {
  readonly #stage: SemanticStage;

  constructor(options: SemanticRerankerOptions) {
    this.#stage = new SemanticStage(options);
  }

  async search(index: ToolSearchIndex, query: string, options: ToolSearchOptions = {}): Promise<SemanticSearchOutcome> {
    const limit = index.effectiveLimit(options.limit);
    const keyword = index.search(query, { ...options, limit: Math.max(limit, Math.min(this.#stage.candidates, index.maxLimit)) });
    if (query.trim() === "") return { results: keyword.slice(0, limit), semantic: "applied" };
    try {
      // Keys join server and name with NUL, so ordering by key orders by server, then name.
      const keyOf = (server: string, name: string) => `${server}\u0000${name}`;
      const documents = index.listTools(options.server).map((tool) => ({ key: keyOf(tool.server, tool.name), text: index.toolText(tool.server, tool.name) ?? tool.name }));
      const byKey = new Map(keyword.map((result) => [keyOf(result.server, result.name), result]));
      const ranked = await this.#stage.rank(query, [...byKey].map(([key, result]) => ({ key, score: result.score })), documents, limit);
      // Candidates found by meaning alone are fetched at the requested detail.
      const results = ranked.map(({ key, score }) => {
        const [server = "", name = ""] = key.split("\u0000");
        const base = byKey.get(key) ?? index.describeTool(server, name, options.detail);
        return { ...(base ?? { server, name }), score: Math.round(score * 1000) / 1000 };
      });
      return { results, semantic: "applied" };
    } catch (error) {
      return { results: keyword.slice(0, limit), semantic: "failed", error: (error as Error).message };
    }
  }
}
