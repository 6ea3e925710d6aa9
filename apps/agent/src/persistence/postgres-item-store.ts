import type pg from "pg";
import type { JsonObject } from "./agent-records.js";
import { decodeNamespace, encodeNamespace, type ItemStore, type StoredItem } from "./item-store.js";

const schema = `
CREATE TABLE IF NOT EXISTS thinktank_store_items (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value JSONB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ttl_minutes DOUBLE PRECISION,
  expires_at TEXT,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS thinktank_store_items_expiry ON thinktank_store_items (expires_at) WHERE expires_at IS NOT NULL;
`;

interface ItemRow {
  namespace: string;
  key: string;
  value: JsonObject;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | null;
  expires_at: string | null;
}

const columns = "namespace, key, value, created_at, updated_at, ttl_minutes, expires_at";
const live = (now: string) => `(expires_at IS NULL OR expires_at > ${now})`;
// Label by label: the namespace itself, or one that starts with it and a "." (lengths counted by Postgres, in characters).
const under = (prefix: string) => `(${prefix} = '' OR namespace = ${prefix} OR substr(namespace, 1, length(${prefix}) + 1) = ${prefix} || '.')`;

/** Store items in the threads database (Postgres, shared by replicas); see ItemStore. */
export class PostgresItemStore implements ItemStore {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  static async open(pool: pg.Pool): Promise<PostgresItemStore> {
    await pool.query(schema);
    return new PostgresItemStore(pool);
  }

  async put(item: StoredItem): Promise<void> {
    await this.#pool.query(
      `INSERT INTO thinktank_store_items (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
         ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
      [encodeNamespace(item.namespace), item.key, JSON.stringify(item.value), item.created_at, item.updated_at, item.ttl_minutes, item.expires_at],
    );
  }

  async get(namespace: readonly string[], key: string, now: string): Promise<StoredItem | undefined> {
    const result = await this.#pool.query(`SELECT ${columns} FROM thinktank_store_items WHERE namespace = $1 AND key = $2 AND ${live("$3")}`, [
      encodeNamespace(namespace),
      key,
      now,
    ]);
    const row = result.rows[0] as ItemRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  async delete(namespace: readonly string[], key: string): Promise<boolean> {
    const result = await this.#pool.query("DELETE FROM thinktank_store_items WHERE namespace = $1 AND key = $2", [encodeNamespace(namespace), key]);
    return (result.rowCount ?? 0) > 0;
  }

  async list(prefix: readonly string[], now: string, page?: { readonly limit: number; readonly offset: number }): Promise<StoredItem[]> {
    const parameters: unknown[] = [encodeNamespace(prefix), now, ...(page ? [page.limit, page.offset] : [])];
    // COLLATE "C": the same order as SQLite's (bytes), whatever the database's collation.
    const result = await this.#pool.query(
      `SELECT ${columns} FROM thinktank_store_items WHERE ${under("$1")} AND ${live("$2")}
       ORDER BY updated_at DESC, namespace COLLATE "C", key COLLATE "C" ${page ? "LIMIT $3 OFFSET $4" : ""}`,
      parameters,
    );
    return (result.rows as ItemRow[]).map(fromRow);
  }

  async namespaces(prefix: readonly string[], now: string): Promise<string[][]> {
    const result = await this.#pool.query(`SELECT DISTINCT namespace FROM thinktank_store_items WHERE ${under("$1")} AND ${live("$2")}`, [encodeNamespace(prefix), now]);
    return (result.rows as { namespace: string }[]).map((row) => decodeNamespace(row.namespace));
  }

  async setExpiry(namespace: readonly string[], key: string, expiresAt: string): Promise<void> {
    await this.#pool.query("UPDATE thinktank_store_items SET expires_at = $1 WHERE namespace = $2 AND key = $3", [expiresAt, encodeNamespace(namespace), key]);
  }

  async sweep(now: string): Promise<number> {
    return (await this.#pool.query("DELETE FROM thinktank_store_items WHERE expires_at IS NOT NULL AND expires_at <= $1", [now])).rowCount ?? 0;
  }
}

function fromRow(row: ItemRow): StoredItem {
  return { ...row, namespace: decodeNamespace(row.namespace) };
}
