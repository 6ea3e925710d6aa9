import type { JsonObject } from "../persistence/agent-records.js";

/** One version of an assistant, as written (POST creates version 1, each PATCH the next). */
export interface AssistantVersionRecord {
  readonly assistant_id: string;
  readonly version: number;
  readonly graph_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly config: JsonObject;
  readonly context: JsonObject;
  readonly metadata: JsonObject;
  readonly created_at: string;
}

/**
 * An assistant as the API answers it: the fields of its current version (`version`: the one runs
 * use, the newest unless `latest` picked another), `created_at` of the assistant, `updated_at` of
 * its last change.
 */
export interface Assistant extends AssistantVersionRecord {
  readonly updated_at: string;
}

/** An assistant as kept: with its owner (never answered). */
export interface StoredAssistant extends Assistant {
  readonly owner_id: string;
}

/** An assistant search (POST /assistants/search and count). */
export interface AssistantSearch {
  /** Only this owner's. @default everyone's */
  readonly owner?: string;
  readonly graph_id?: string;
  /** A part of the name, any case. */
  readonly name?: string;
  readonly metadata?: JsonObject;
  readonly limit: number;
  readonly offset: number;
  readonly sort_by: "assistant_id" | "graph_id" | "name" | "created_at" | "updated_at";
  readonly sort_order: "asc" | "desc";
}

export type AssistantFilter = Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">;
