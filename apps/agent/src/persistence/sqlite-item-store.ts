import type { Database } from "better-sqlite3";
import type { JsonObject } from "./agent-records.js";
import { decodeNamespace, encodeNamespace, type ItemStore, type StoredItem } from "./item-store.js";

const schema = `
CREATE TABLE IF NOT EXISTS thinktank_store_items (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ttl_minutes REAL,
  expires_at TEXT,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS thinktank_store_items_expiry ON thinktank_store_items (expires_at) WHERE expires_at IS NOT NULL;
`;

interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | null;
  expires_at: string | null;
}

const live = "(expires_at IS NULL OR expires_at > @now)";
// Label by label: the namespace itself, or one that starts with it and a "." (lengths counted by SQLite, in characters).
const under = "(@prefix = '' OR namespace = @prefix OR substr(namespace, 1, length(@prefix) + 1) = @prefix || '.')";

/** Store items in the threads database (SQLite); see ItemStore. */
export class SqliteItemStore implements ItemStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    db.exec(schema);
  }

  async put(item: StoredItem): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO thinktank_store_items (namespace, key, value, created_at, updated_at, ttl_minutes, expires_at)
         VALUES (@namespace, @key, @value, @created_at, @updated_at, @ttl_minutes, @expires_at)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
           ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
      )
      .run({ ...item, namespace: encodeNamespace(item.namespace), value: JSON.stringify(item.value) });
  }

  async get(namespace: readonly string[], key: string, now: string): Promise<StoredItem | undefined> {
    const row = this.#db
      .prepare(`SELECT * FROM thinktank_store_items WHERE namespace = @namespace AND key = @key AND ${live}`)
      .get({ namespace: encodeNamespace(namespace), key, now }) as ItemRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  async delete(namespace: readonly string[], key: string): Promise<boolean> {
    return this.#db.prepare("DELETE FROM thinktank_store_items WHERE namespace = ? AND key = ?").run(encodeNamespace(namespace), key).changes > 0;
  }

  async list(prefix: readonly string[], now: string, page?: { readonly limit: number; readonly offset: number }): Promise<StoredItem[]> {
    const paging = page ? "LIMIT @limit OFFSET @offset" : "";
    const rows = this.#db
      .prepare(`SELECT * FROM thinktank_store_items WHERE ${under} AND ${live} ORDER BY updated_at DESC, namespace, key ${paging}`)
      .all({ prefix: encodeNamespace(prefix), now, ...page }) as ItemRow[];
    return rows.map(fromRow);
  }

  async namespaces(prefix: readonly string[], now: string): Promise<string[][]> {
    const rows = this.#db
      .prepare(`SELECT DISTINCT namespace FROM thinktank_store_items WHERE ${under} AND ${live}`)
      .all({ prefix: encodeNamespace(prefix), now }) as { namespace: string }[];
    return rows.map((row) => decodeNamespace(row.namespace));
  }

  async setExpiry(namespace: readonly string[], key: string, expiresAt: string): Promise<void> {
    this.#db.prepare("UPDATE thinktank_store_items SET expires_at = ? WHERE namespace = ? AND key = ?").run(expiresAt, encodeNamespace(namespace), key);
  }

  async sweep(now: string): Promise<number> {
    return this.#db.prepare("DELETE FROM thinktank_store_items WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now).changes;
  }
}

function fromRow(row: ItemRow): StoredItem {
  return { ...row, namespace: decodeNamespace(row.namespace), value: JSON.parse(row.value) as JsonObject };
}
