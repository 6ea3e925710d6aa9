import type { PostgresListener, PostgresListenerOptions } from "./postgres-listener.js";
import type { SqlDatabase } from "./sql-database.js";
import { openSqliteFile } from "./sqlite-file.js";
import { SqliteDatabase } from "./sqlite-database.js";

/**
 * The threads database opened on its own connection for tables kept beside the stores' (the users,
 * keys and audit of packages/identity): the same file or Postgres database, opened the same way.
 */
export interface SqlConnection {
  readonly database: SqlDatabase;
  /** For the start-up log, e.g. "sqlite /data/threads.sqlite" (never a password). */
  readonly description: string;
  /** Postgres: the URL, for a `PostgresListener` on it; undefined for SQLite. */
  readonly url?: string;
  /** Runs schema set-up: on Postgres under the schema lock (replicas take turns, schema-lock.ts), on SQLite as is. */
  setUp<Result>(work: () => Promise<Result>): Promise<Result>;
  close(): Promise<void>;
}

/** The SQLite threads database file (made 0600 with its folder when missing, WAL mode), as `openSqliteStore` opens it. */
export async function openSqliteConnection(file: string): Promise<SqlConnection> {
  const db = await openSqliteFile(file);
  return {
    database: new SqliteDatabase(db),
    description: `sqlite ${file}`,
    setUp: (work) => work(),
    close: async () => {
      db.close();
    },
  };
}

/** The Postgres threads database at `url` over a small pool of its own; pg is loaded here, on first use. */
export async function openPostgresConnection(url: string, options: { poolSize?: number } = {}): Promise<SqlConnection> {
  const { openPostgresPool } = await import("./postgres-connection.js");
  return openPostgresPool(url, options.poolSize ?? 4);
}

/** LISTEN on a channel of a Postgres database, opened (rejects when the first connection fails); pg is loaded here, on first use. */
export async function listenOnPostgres(options: PostgresListenerOptions): Promise<PostgresListener> {
  const { PostgresListener: Listener } = await import("./postgres-listener.js");
  const listener = new Listener(options);
  await listener.open();
  return listener;
}
