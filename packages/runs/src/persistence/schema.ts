import { operatorId } from "@thinktank/core";
import type { SqlDialect } from "./sql-database.js";

/**
 * `json` columns hold JSON text (SQLite) or JSONB (Postgres); the stores read and write them as values.
 * `bytes` hold a Buffer (BLOB / BYTEA), `integer` a whole number (INTEGER on both).
 */
type ColumnType = "text" | "json" | "real" | "integer" | "bytes";

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  /** @default false */
  readonly nullable?: boolean;
  /** A SQL literal the column takes when an INSERT leaves it out (and existing rows take when it is added). @default none */
  readonly default?: string;
}

export interface Table {
  readonly name: string;
  readonly columns: readonly Column[];
  readonly primaryKey: readonly string[];
  readonly indexes?: readonly { readonly name: string; readonly columns: readonly string[]; readonly where?: string }[];
}

const text = (name: string, nullable = false): Column => ({ name, type: "text", nullable });
const json = (name: string, nullable = false): Column => ({ name, type: "json", nullable });

/**
 * Who owns a thread (docs/architecture.md, "Users"), or whom a run executes for: a caller's id.
 * Rows from before owners existed, and rows an older replica inserts, belong to the operator.
 * Not `owner`: thinktank_runs has that column already on Postgres (the replica holding a run).
 */
export const ownerColumn: Column = { name: "owner_id", type: "text", default: `'${operatorId}'` };

/**
 * The one definition of the tables beside the checkpoints, for SQLite and Postgres alike: thread
 * and run records (what the API lists and filters on) and the store API's items. Timestamps are
 * ISO text from the caller's clock; a namespace is one text column (item-store.ts).
 */
export const threadsTable: Table = {
  name: "thinktank_threads",
  columns: [
    text("thread_id"),
    text("created_at"),
    text("updated_at"),
    text("state_updated_at"),
    json("metadata"),
    text("status"),
    json("values", true),
    json("interrupts"),
    json("error", true),
    ownerColumn,
  ],
  primaryKey: ["thread_id"],
};

export const runsTable: Table = {
  name: "thinktank_runs",
  columns: [
    text("run_id"),
    text("thread_id"),
    text("assistant_id"),
    text("created_at"),
    text("updated_at"),
    text("status"),
    json("metadata"),
    json("kwargs"),
    text("multitask_strategy"),
    ownerColumn,
  ],
  primaryKey: ["run_id"],
  indexes: [{ name: "thinktank_runs_thread", columns: ["thread_id", "created_at"] }],
};

/**
 * Columns of `thinktank_runs` through which agent replicas on one Postgres database share runs
 * (postgres-run-queue.ts): added to existing tables (never part of a RunRecord, so the API does not
 * show them), on Postgres only. Times are epoch seconds by the database's clock, so replicas' clocks
 * never meet.
 */
export const runQueueColumns: readonly Column[] = [
  // The replica that admitted the run and executes it (or takes it over), and when it last said it still holds it.
  text("owner", true),
  { name: "heartbeat_at", type: "real", nullable: true },
  // A pending run waits until then (after_seconds).
  { name: "after_at", type: "real", nullable: true },
  // interrupt | rollback, asked by a cancel or a later run's multitask_strategy, for the owner to act on.
  text("cancel_action", true),
  // "delete" for a stateless run: its temporary thread is deleted after its last run.
  text("temporary_thread", true),
  // How an `error` run failed ({ error, message }): what join answers on any replica.
  json("end_error", true),
];

/**
 * A finished run's figures (duration, tokens, tool calls, its error: run-figures.ts), written when it
 * ends and listed by GET /runs/recent; added to existing tables, never part of a RunRecord.
 */
export const runSummaryColumn: Column = { name: "summary", type: "json", nullable: true };
/** The activity list's order: runs across threads, newest first. */
export const runSummaryIndexes: NonNullable<Table["indexes"]> = [{ name: "thinktank_runs_recent", columns: ["created_at"] }];

/** Created once the owner columns exist (tables from before owners get them added first): a user's threads, newest first. */
export const ownerIndexes: NonNullable<Table["indexes"]> = [{ name: "thinktank_threads_owner", columns: ["owner_id", "updated_at"] }];

/** Indexes the run queue's claims and admissions read by: a thread's runs in flight, in order. */
export const runQueueIndexes: NonNullable<Table["indexes"]> = [
  { name: "thinktank_runs_in_flight", columns: ["thread_id", "created_at"], where: "status IN ('pending', 'running')" },
  { name: "thinktank_runs_pending", columns: ["created_at"], where: "status = 'pending'" },
];

export const itemsTable: Table = {
  name: "thinktank_store_items",
  columns: [text("namespace"), text("key"), json("value"), text("created_at"), text("updated_at"), { name: "ttl_minutes", type: "real", nullable: true }, text("expires_at", true)],
  primaryKey: ["namespace", "key"],
  indexes: [{ name: "thinktank_store_items_expiry", columns: ["expires_at"], where: "expires_at IS NOT NULL" }],
};

/**
 * Assistants (src/assistants): each one's current state (the fields of the version runs use, and
 * `version`, which one that is), and every version it had, as written. Owned as threads are.
 */
export const assistantsTable: Table = {
  name: "thinktank_assistants",
  columns: [
    text("assistant_id"),
    text("graph_id"),
    text("name"),
    text("description", true),
    json("config"),
    json("context"),
    json("metadata"),
    { name: "version", type: "integer" },
    text("created_at"),
    text("updated_at"),
    ownerColumn,
  ],
  primaryKey: ["assistant_id"],
  indexes: [{ name: "thinktank_assistants_owner", columns: ["owner_id", "created_at"] }],
};

export const assistantVersionsTable: Table = {
  name: "thinktank_assistant_versions",
  columns: [
    text("assistant_id"),
    { name: "version", type: "integer" },
    text("graph_id"),
    text("name"),
    text("description", true),
    json("config"),
    json("context"),
    json("metadata"),
    text("created_at"),
  ],
  primaryKey: ["assistant_id", "version"],
};

/**
 * Crons (src/crons): a schedule, the run each fire makes, its owner, and the claim of the fire in
 * progress (`claim_*`: which replica fires `next_run_at`, since when, with which run id), through
 * which replicas fire each time once (README.md, "Crons"). Times to fire are epoch milliseconds.
 */
export const cronsTable: Table = {
  name: "thinktank_crons",
  columns: [
    text("cron_id"),
    ownerColumn,
    text("assistant_id"),
    text("thread_id", true),
    text("schedule"),
    text("timezone", true),
    text("end_time", true),
    text("on_run_completed", true),
    json("payload"),
    json("metadata"),
    { name: "enabled", type: "integer" },
    { name: "next_run_at", type: "real", nullable: true },
    json("paused_reason", true),
    { name: "failures", type: "integer", default: "0" },
    text("last_run_id", true),
    text("created_at"),
    text("updated_at"),
    text("claim_replica", true),
    { name: "claim_at", type: "real", nullable: true },
    text("claim_run_id", true),
  ],
  primaryKey: ["cron_id"],
  indexes: [
    { name: "thinktank_crons_owner", columns: ["owner_id", "created_at"] },
    { name: "thinktank_crons_due", columns: ["next_run_at"], where: "enabled = 1 AND next_run_at IS NOT NULL" },
  ],
};

/**
 * Large strings of checkpoints (blob-ref-saver.ts), once per thread and content hash, in chunks of
 * JSON string literals (each chunk `JSON.stringify` of a slice of the string, as UTF-8): a chunk is
 * read, and written into a response, on its own.
 */
export const checkpointBlobsTable: Table = {
  name: "thinktank_checkpoint_blobs",
  columns: [text("thread_id"), text("sha256"), { name: "chunk", type: "integer" }, { name: "data", type: "bytes" }],
  primaryKey: ["thread_id", "sha256", "chunk"],
};

/** An identifier, quoted (`values` is a keyword in both dialects). */
const quote = (name: string): string => `"${name}"`;

/** The table's columns, quoted, in order: for INSERT and SELECT lists. */
export function columnList(table: Table): string {
  return table.columns.map((column) => quote(column.name)).join(", ");
}

/** `?, ?, ...`: one placeholder per column. */
export function placeholders(table: Table): string {
  return table.columns.map(() => "?").join(", ");
}

/** CREATE TABLE / CREATE INDEX statements (IF NOT EXISTS) for the tables, in the dialect's types. */
export function createTablesSql(dialect: SqlDialect, tables: readonly Table[]): string {
  return tables
    .map((table) => {
      const columns = table.columns.map((column) => `  ${quote(column.name)} ${columnDefinition(dialect, column)}`);
      const create = `CREATE TABLE IF NOT EXISTS ${table.name} (\n${[...columns, `  PRIMARY KEY (${table.primaryKey.map(quote).join(", ")})`].join(",\n")}\n);`;
      const indexes = (table.indexes ?? []).map((index) => createIndexSql(table, index));
      return [create, ...indexes].join("\n");
    })
    .join("\n");
}

/** A column's type, NOT NULL unless nullable, and its default. */
export function columnDefinition(dialect: SqlDialect, column: Column): string {
  return `${columnType(dialect, column.type)}${column.nullable ? "" : " NOT NULL"}${column.default === undefined ? "" : ` DEFAULT ${column.default}`}`;
}

function columnType(dialect: SqlDialect, type: ColumnType): string {
  if (type === "json") return dialect.jsonType;
  if (type === "real") return dialect.realType;
  if (type === "bytes") return dialect.name === "postgres" ? "BYTEA" : "BLOB";
  return type === "integer" ? "INTEGER" : "TEXT";
}

export function createIndexSql(table: Table, index: NonNullable<Table["indexes"]>[number]): string {
  return `CREATE INDEX IF NOT EXISTS ${index.name} ON ${table.name} (${index.columns.map(quote).join(", ")})${index.where ? ` WHERE ${index.where}` : ""};`;
}

/** ALTER TABLE statements adding `columns` where missing (Postgres: ADD COLUMN IF NOT EXISTS), then `indexes`: additive migrations. */
export function addColumnsSql(dialect: SqlDialect, table: Table, columns: readonly Column[], indexes: NonNullable<Table["indexes"]> = []): string {
  const alters = columns.map((column) => `ALTER TABLE ${table.name} ADD COLUMN IF NOT EXISTS ${quote(column.name)} ${columnDefinition(dialect, column)};`);
  return [...alters, ...indexes.map((index) => createIndexSql(table, index))].join("\n");
}

/** A record's values as parameters, in column order: JSON columns as JSON text (null stays null). */
export function rowParameters(table: Table, record: object): unknown[] {
  const fields = record as Record<string, unknown>;
  return table.columns.map((column) => {
    const value = fields[column.name] ?? null;
    return column.type === "json" && value !== null ? JSON.stringify(value) : value;
  });
}

/** A row as a record, in column order: JSON columns decoded (null stays null). */
export function recordOf<Record>(table: Table, dialect: SqlDialect, row: object): Record {
  const fields = row as { [name: string]: unknown };
  const record: { [name: string]: unknown } = {};
  for (const column of table.columns) {
    const value = fields[column.name] ?? null;
    record[column.name] = column.type === "json" && value !== null ? dialect.readJson(value) : value;
  }
  return record as Record;
}
