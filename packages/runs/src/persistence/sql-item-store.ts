import { operatorId } from "@thinktank/core";
import { ownerLabel } from "../owners/access.js";
import { decodeNamespace, encodeNamespace, type ItemStore, type StoredItem } from "./item-store.js";
import { columnList, createTablesSql, itemsTable, placeholders, recordOf, rowParameters } from "./schema.js";
import { migrateOnce } from "./migrations.js";
import type { SqlDatabase } from "./sql-database.js";

const columns = columnList(itemsTable);
const live = "(expires_at IS NULL OR expires_at > ?)";
// Label by label: the namespace itself, or one that starts with it and a "." (lengths counted by the database, in characters).
// Four parameters, each the encoded prefix; CAST so Postgres knows each one's type.
const under = "(CAST(? AS TEXT) = '' OR namespace = CAST(? AS TEXT) OR substr(namespace, 1, length(CAST(? AS TEXT)) + 1) = CAST(? AS TEXT) || '.')";
const underParameters = (prefix: readonly string[]) => Array<string>(4).fill(encodeNamespace(prefix));

/** Store items in the threads database (SQLite, or Postgres shared by replicas); see ItemStore. */
export class SqlItemStore implements ItemStore {
  readonly #db: SqlDatabase;

  private constructor(db: SqlDatabase) {
    this.#db = db;
  }

  /**
   * Creates the table when missing. Items live under their owner's label (StoreService): items from
   * before owners existed are moved under the operator's, once per database. Two steps, so no moved
   * namespace meets one not yet moved: "." first (no namespace starts with one), then the label.
   */
  static async open(db: SqlDatabase): Promise<SqlItemStore> {
    await db.exec(createTablesSql(db.dialect, [itemsTable]));
    await migrateOnce(
      db,
      "store_items_under_owner",
      [
        { sql: "UPDATE thinktank_store_items SET namespace = '.' || namespace", parameters: [] },
        { sql: "UPDATE thinktank_store_items SET namespace = CAST(? AS TEXT) || namespace", parameters: [ownerLabel(operatorId)] },
      ],
      new Date().toISOString(),
    );
    return new SqlItemStore(db);
  }

  async put(item: StoredItem): Promise<void> {
    await this.#db.run(
      `INSERT INTO thinktank_store_items (${columns}) VALUES (${placeholders(itemsTable)})
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
         ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
      rowParameters(itemsTable, { ...item, namespace: encodeNamespace(item.namespace) }),
    );
  }

  async get(namespace: readonly string[], key: string, now: string): Promise<StoredItem | undefined> {
    const [row] = await this.#db.all<object>(`SELECT ${columns} FROM thinktank_store_items WHERE namespace = ? AND key = ? AND ${live}`, [encodeNamespace(namespace), key, now]);
    return row ? this.#item(row) : undefined;
  }

  async delete(namespace: readonly string[], key: string): Promise<boolean> {
    return (await this.#db.run("DELETE FROM thinktank_store_items WHERE namespace = ? AND key = ?", [encodeNamespace(namespace), key])) > 0;
  }

  async list(prefix: readonly string[], now: string, page?: { readonly limit: number; readonly offset: number }): Promise<StoredItem[]> {
    const { bytewise } = this.#db.dialect;
    const rows = await this.#db.all<object>(
      `SELECT ${columns} FROM thinktank_store_items WHERE ${under} AND ${live}
       ORDER BY updated_at DESC, namespace ${bytewise}, key ${bytewise} ${page ? "LIMIT ? OFFSET ?" : ""}`,
      [...underParameters(prefix), now, ...(page ? [page.limit, page.offset] : [])],
    );
    return rows.map((row) => this.#item(row));
  }

  async namespaces(prefix: readonly string[], now: string): Promise<string[][]> {
    const rows = await this.#db.all<{ namespace: string }>(`SELECT DISTINCT namespace FROM thinktank_store_items WHERE ${under} AND ${live}`, [...underParameters(prefix), now]);
    return rows.map((row) => decodeNamespace(row.namespace));
  }

  async setExpiry(namespace: readonly string[], key: string, expiresAt: string): Promise<void> {
    await this.#db.run("UPDATE thinktank_store_items SET expires_at = ? WHERE namespace = ? AND key = ?", [expiresAt, encodeNamespace(namespace), key]);
  }

  async sweep(now: string): Promise<number> {
    return this.#db.run("DELETE FROM thinktank_store_items WHERE expires_at IS NOT NULL AND expires_at <= ?", [now]);
  }

  #item(row: object): StoredItem {
    const record = recordOf<Omit<StoredItem, "namespace"> & { namespace: string }>(itemsTable, this.#db.dialect, row);
    return { ...record, namespace: decodeNamespace(record.namespace) };
  }
}
