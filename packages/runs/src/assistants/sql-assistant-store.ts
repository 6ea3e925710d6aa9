import type { JsonObject } from "../persistence/agent-records.js";
import { containsAll } from "../persistence/metadata-store.js";
import { assistantsTable, assistantVersionsTable, columnList, createTablesSql, placeholders, recordOf, rowParameters, type Table } from "../persistence/schema.js";
import type { SqlDatabase } from "../persistence/sql-database.js";
import type { AssistantFilter, AssistantSearch, AssistantVersionRecord, StoredAssistant } from "./assistant-records.js";

const assistantColumns = columnList(assistantsTable);
const versionColumns = columnList(assistantVersionsTable);
const sortColumns = new Set(["assistant_id", "graph_id", "name", "created_at", "updated_at"]);
/** The fields a version sets on the assistant (all but its id, its version and created_at). */
const versionFields = ["graph_id", "name", "description", "config", "context", "metadata"] as const;

/** What a new version is made of. */
export type AssistantVersionFields = Pick<AssistantVersionRecord, (typeof versionFields)[number]>;

/** `?` per column cast to its type: Postgres cannot tell the types of an INSERT … SELECT's parameters. */
function typedPlaceholders(table: Table): string {
  return table.columns.map((column) => `CAST(? AS ${{ json: "JSONB", real: "DOUBLE PRECISION", integer: "INTEGER", text: "TEXT", bytes: "BYTEA" }[column.type]})`).join(", ");
}

/** A unique-key violation (SQLite or Postgres): a concurrent writer took the key first. */
function isKeyConflict(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}

/**
 * Assistants and their versions in the threads database (SQLite, or Postgres shared by replicas):
 * `thinktank_assistants` holds each one's current state, `thinktank_assistant_versions` every
 * version as written. No rules here (owners, the built-in assistant, limits): AssistantService's.
 */
export class SqlAssistantStore {
  readonly #db: SqlDatabase;

  private constructor(db: SqlDatabase) {
    this.#db = db;
  }

  static async open(db: SqlDatabase): Promise<SqlAssistantStore> {
    await db.exec(createTablesSql(db.dialect, [assistantsTable, assistantVersionsTable]));
    return new SqlAssistantStore(db);
  }

  /**
   * Records a new assistant and its version 1 unless its owner keeps `maxPerOwner` already
   * ("limit") or the id is taken ("exists"). The count and the insert are one statement, and on
   * Postgres they hold the owner's advisory lock, so creates at once (on any replica) cannot pass
   * the limit.
   */
  async create(assistant: StoredAssistant, maxPerOwner: number): Promise<"created" | "exists" | "limit"> {
    const postgres = this.#db.dialect.name === "postgres";
    try {
      const changes = await this.#db.transaction([
        ...(postgres ? [{ sql: "SELECT pg_advisory_xact_lock(hashtextextended(CAST(? AS TEXT), 0))", parameters: [`thinktank-assistants:${assistant.owner_id}`] }] : []),
        {
          sql: `INSERT INTO thinktank_assistants (${assistantColumns}) SELECT ${postgres ? typedPlaceholders(assistantsTable) : placeholders(assistantsTable)} WHERE (SELECT COUNT(*) FROM thinktank_assistants WHERE owner_id = ?) < ?`,
          parameters: [...rowParameters(assistantsTable, assistant), assistant.owner_id, maxPerOwner],
        },
        {
          sql: `INSERT INTO thinktank_assistant_versions (${versionColumns}) SELECT ${postgres ? typedPlaceholders(assistantVersionsTable) : placeholders(assistantVersionsTable)} WHERE EXISTS (SELECT 1 FROM thinktank_assistants WHERE assistant_id = ?)`,
          parameters: [...rowParameters(assistantVersionsTable, assistant), assistant.assistant_id],
        },
      ]);
      return (changes[postgres ? 1 : 0] ?? 0) > 0 ? "created" : "limit";
    } catch (error) {
      if (isKeyConflict(error)) return "exists";
      throw error;
    }
  }

  async get(assistantId: string): Promise<StoredAssistant | undefined> {
    const [row] = await this.#db.all<object>(`SELECT ${assistantColumns} FROM thinktank_assistants WHERE assistant_id = ?`, [assistantId]);
    return row ? recordOf<StoredAssistant>(assistantsTable, this.#db.dialect, row) : undefined;
  }

  async getVersion(assistantId: string, version: number): Promise<AssistantVersionRecord | undefined> {
    const [row] = await this.#db.all<object>(`SELECT ${versionColumns} FROM thinktank_assistant_versions WHERE assistant_id = ? AND version = ?`, [assistantId, version]);
    return row ? this.#version(row) : undefined;
  }

  /**
   * Writes the next version and makes it current (the newest version wins, as a PATCH does);
   * undefined when the assistant is gone. Two writers at once each get a version of their own.
   */
  async addVersion(assistantId: string, fields: AssistantVersionFields, now: string): Promise<StoredAssistant | undefined> {
    for (let attempt = 0; ; attempt++) {
      const [row] = await this.#db.all<{ newest: number | string | null }>("SELECT MAX(version) AS newest FROM thinktank_assistant_versions WHERE assistant_id = ?", [assistantId]);
      if (row?.newest === null || row?.newest === undefined) return undefined;
      const version: AssistantVersionRecord = { assistant_id: assistantId, version: Number(row.newest) + 1, ...fields, created_at: now };
      try {
        const [, changed] = await this.#db.transaction([
          { sql: `INSERT INTO thinktank_assistant_versions (${versionColumns}) VALUES (${placeholders(assistantVersionsTable)})`, parameters: rowParameters(assistantVersionsTable, version) },
          this.#makeCurrent(version, now),
        ]);
        if (changed === 0) {
          // Deleted meanwhile: the version just written belongs to nothing.
          await this.#db.run("DELETE FROM thinktank_assistant_versions WHERE assistant_id = ?", [assistantId]);
          return undefined;
        }
        return this.get(assistantId);
      } catch (error) {
        if (!isKeyConflict(error) || attempt >= 20) throw error;
      }
    }
  }

  /** Makes an existing version current; undefined when the assistant or that version does not exist. */
  async setLatest(assistantId: string, version: number, now: string): Promise<StoredAssistant | undefined> {
    const record = await this.getVersion(assistantId, version);
    if (!record) return undefined;
    const statement = this.#makeCurrent(record, now);
    if ((await this.#db.run(statement.sql, statement.parameters)) === 0) return undefined;
    return this.get(assistantId);
  }

  /** Versions newest first, those whose metadata holds `metadata`. */
  async versions(assistantId: string, options: { readonly metadata?: JsonObject; readonly limit: number; readonly offset: number }): Promise<AssistantVersionRecord[]> {
    const rows = await this.#db.all<object>(`SELECT ${versionColumns} FROM thinktank_assistant_versions WHERE assistant_id = ? ORDER BY version DESC`, [assistantId]);
    return rows
      .map((row) => this.#version(row))
      .filter((version) => containsAll(version.metadata, options.metadata))
      .slice(options.offset, options.offset + options.limit);
  }

  /** Deletes the assistant and its versions; false when there was none. */
  async delete(assistantId: string): Promise<boolean> {
    const [, deleted] = await this.#db.transaction([
      { sql: "DELETE FROM thinktank_assistant_versions WHERE assistant_id = ?", parameters: [assistantId] },
      { sql: "DELETE FROM thinktank_assistants WHERE assistant_id = ?", parameters: [assistantId] },
    ]);
    return (deleted ?? 0) > 0;
  }

  async search(search: AssistantSearch): Promise<StoredAssistant[]> {
    const column = sortColumns.has(search.sort_by) ? search.sort_by : "created_at";
    const order = search.sort_order === "asc" ? "ASC" : "DESC";
    const filter = this.#filter(search);
    const orderBy = `ORDER BY "${column}" ${order}, assistant_id ${order}`;
    if (filter.inCode) {
      const rows = await this.#db.all<object>(`SELECT ${assistantColumns} FROM thinktank_assistants ${filter.where} ${orderBy}`, filter.parameters);
      return rows.map((row) => this.#assistant(row)).filter(filter.inCode).slice(search.offset, search.offset + search.limit);
    }
    const rows = await this.#db.all<object>(`SELECT ${assistantColumns} FROM thinktank_assistants ${filter.where} ${orderBy} LIMIT ? OFFSET ?`, [...filter.parameters, search.limit, search.offset]);
    return rows.map((row) => this.#assistant(row));
  }

  async count(search: AssistantFilter): Promise<number> {
    const filter = this.#filter(search);
    if (filter.inCode) {
      const rows = await this.#db.all<object>(`SELECT ${assistantColumns} FROM thinktank_assistants ${filter.where}`, filter.parameters);
      return rows.map((row) => this.#assistant(row)).filter(filter.inCode).length;
    }
    const [row] = await this.#db.all<{ count: number | string }>(`SELECT count(*) AS count FROM thinktank_assistants ${filter.where}`, filter.parameters);
    return Number(row?.count ?? 0);
  }

  /** The statement that copies a version's fields onto its assistant. */
  #makeCurrent(version: AssistantVersionRecord, now: string): { sql: string; parameters: unknown[] } {
    const assignments = versionFields.map((field) => `"${field}" = ?`).join(", ");
    const values = versionFields.map((field) => {
      const value = version[field];
      return field === "config" || field === "context" || field === "metadata" ? JSON.stringify(value) : value;
    });
    return { sql: `UPDATE thinktank_assistants SET ${assignments}, version = ?, updated_at = ? WHERE assistant_id = ?`, parameters: [...values, version.version, now, version.assistant_id] };
  }

  #filter(search: AssistantFilter): { where: string; parameters: unknown[]; inCode?: (assistant: StoredAssistant) => boolean } {
    const clauses: string[] = [];
    const parameters: unknown[] = [];
    if (search.owner !== undefined) {
      clauses.push("owner_id = ?");
      parameters.push(search.owner);
    }
    if (search.graph_id !== undefined) {
      clauses.push("graph_id = ?");
      parameters.push(search.graph_id);
    }
    if (search.name !== undefined && search.name !== "") {
      clauses.push("lower(name) LIKE ? ESCAPE '\\'");
      parameters.push(`%${search.name.toLowerCase().replace(/[\\%_]/g, "\\$&")}%`);
    }
    let inCode: ((assistant: StoredAssistant) => boolean) | undefined;
    const metadata = search.metadata;
    if (metadata && Object.keys(metadata).length > 0) {
      const contains = this.#db.dialect.jsonContains;
      if (contains) {
        clauses.push(contains("metadata"));
        parameters.push(JSON.stringify(metadata));
      } else {
        inCode = (assistant) => containsAll(assistant.metadata, metadata);
      }
    }
    return { where: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", parameters, ...(inCode ? { inCode } : {}) };
  }

  #assistant(row: object): StoredAssistant {
    return recordOf<StoredAssistant>(assistantsTable, this.#db.dialect, row);
  }

  #version(row: object): AssistantVersionRecord {
    return recordOf<AssistantVersionRecord>(assistantVersionsTable, this.#db.dialect, row);
  }
}

