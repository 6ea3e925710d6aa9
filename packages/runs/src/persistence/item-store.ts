import type { JsonObject } from "./agent-records.js";

/** One item of the LangGraph store API (`/store/items`), as kept in the threads database. */
export interface StoredItem {
  readonly namespace: readonly string[];
  readonly key: string;
  readonly value: JsonObject;
  readonly created_at: string;
  readonly updated_at: string;
  /** Minutes the item lives after its last write (or a read that refreshes it); null: forever. */
  readonly ttl_minutes: number | null;
  readonly expires_at: string | null;
}

/**
 * The store's rows, over SQLite and Postgres alike (table `thinktank_store_items` beside the
 * thread records). Storage only: validation, filters, text queries and TTL rules are StoreService's,
 * so both backends answer the same. Reads skip items expired at `now`.
 */
export interface ItemStore {
  /** Inserts the item, or replaces the value, updated_at, ttl and expiry of the one there (created_at stays). */
  put(item: StoredItem): Promise<void>;
  get(namespace: readonly string[], key: string, now: string): Promise<StoredItem | undefined>;
  /** False when there was none. */
  delete(namespace: readonly string[], key: string): Promise<boolean>;
  /**
   * Items whose namespace is `prefix` or lies under it, label by label (every item for `[]`), most
   * recently updated first; `page` pages in the database.
   */
  list(prefix: readonly string[], now: string, page?: { readonly limit: number; readonly offset: number }): Promise<StoredItem[]>;
  /** The distinct namespaces of the items `list(prefix, now)` would return. */
  namespaces(prefix: readonly string[], now: string): Promise<string[][]>;
  setExpiry(namespace: readonly string[], key: string, expiresAt: string): Promise<void>;
  /** Deletes the items expired at `now`; returns how many. */
  sweep(now: string): Promise<number>;
}

/**
 * A namespace as one text column: labels joined by ".", which no label may hold (the API's own
 * rule, and the form `GET /store/items?namespace=a.b` uses), so the encoding is exact and
 * "under a.b" is "equal to a.b, or starting with a.b.".
 */
export function encodeNamespace(namespace: readonly string[]): string {
  return namespace.join(".");
}

export function decodeNamespace(text: string): string[] {
  return text.split(".");
}
