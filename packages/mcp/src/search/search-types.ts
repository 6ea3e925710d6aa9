import type { QueryWeights, ScoringWeights } from "@thinktank/search";
import type { ToolSearchOverlay } from "./tool-search-overlay.js";

/** How much of each tool a search result carries. */
export type SearchDetail = "name" | "desc" | "full";

export const searchDetails: readonly SearchDetail[] = ["name", "desc", "full"];

export interface ToolSearchOptions {
  /** Only tools of this server. An unknown server is an MCP_SERVER_NOT_FOUND error naming the known ones. */
  readonly server?: string;
  /** name: server, name, score; desc: adds the first sentence of the description; full: adds the whole description, schemas and wrapper path. @default "name" */
  readonly detail?: SearchDetail;
  /** How many results; capped at the index's `maxLimit`. @default the index's `defaultLimit` */
  readonly limit?: number;
  /** One caller's own servers, searched with the index's (ToolSearchIndex.overlay). @default none */
  readonly overlay?: ToolSearchOverlay;
  /** Only servers this lets through (an assistant's MCP servers); ranking is as if the others were not there. @default every server */
  readonly servers?: (server: string) => boolean;
}

export interface ToolSearchResult {
  readonly server: string;
  readonly name: string;
  /** Relevance (higher is better); comparable only within one search. */
  readonly score: number;
  readonly title?: string;
  /** desc: the first sentence (at most 200 characters); full: the whole description. */
  readonly description?: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** Where the typed wrapper of this tool lives in the sandbox (full only). */
  readonly wrapperPath?: string;
}

/** Maps a tool to the path of its generated wrapper; the code generator supplies the real mapping. */
export type WrapperPathResolver = (server: string, tool: string) => string;

/**
 * The knobs of the ranking: the engine's (`ScoringWeights`, `QueryWeights` of @thinktank/search)
 * with the tool fields, and the tool-specific ones. The defaults were tuned on the dev half of the
 * gold set (packages/mcp/eval) and are checked on the held-out half.
 */
export interface RankingWeights extends ScoringWeights, QueryWeights {
  /** BM25F weight of each field. */
  readonly fields: Readonly<Record<FieldName, number>>;
  /** BM25F length normalisation of each field (0: none, 1: full). */
  readonly lengthNormalization: Readonly<Record<FieldName, number>>;
  /** How strongly a server whose vocabulary (names, tool names, first sentences) matches the query lifts its tools (0: off). */
  readonly serverBoost: number;
  /** How strongly naming a server in the query ("... in slack", "gcloud ...") lifts its tools, scaled by how rare the name is (0: off). */
  readonly mentionBoost: number;
  /** How many of the keyword top are re-ranked by the second stage (0: no second stage). */
  readonly rerankDepth: number;
  /** The second stage's weight of each feature (see `rerankFeatures`): a tool's score is multiplied by e^(Σ weight × feature). */
  readonly rerank: Readonly<Record<RerankFeature, number>>;
}

export const rerankFeatureNames = ["actionAgree", "actionConflict", "numberAgree", "numberDisagree", "leadCoverage", "mention", "shortName"] as const;
export type RerankFeature = (typeof rerankFeatureNames)[number];

export const fieldNames = ["name", "server", "title", "lead", "body", "params", "paramDocs"] as const;
export type FieldName = (typeof fieldNames)[number];
