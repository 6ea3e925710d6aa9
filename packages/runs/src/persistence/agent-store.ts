import fs from "node:fs";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import Database from "better-sqlite3";
import { ThinktankError } from "@thinktank/core";
import type { RunQueue, SharedRunQueueOptions } from "../runs/run-queue.js";
import type { ItemStore } from "./item-store.js";
import type { MetadataStore } from "./metadata-store.js";
import { SqlItemStore } from "./sql-item-store.js";
import { SqlMetadataStore } from "./sql-metadata-store.js";
import { SqliteDatabase } from "./sqlite-database.js";
import { cacheStatements } from "./statement-cache.js";
import { TurnTakingSqliteSaver } from "./turn-taking-sqlite-saver.js";

/** Where threads live: LangGraph checkpoints plus our thread/run records and store items, in one database. */
export interface AgentStore {
  readonly checkpointer: BaseCheckpointSaver;
  readonly metadata: MetadataStore;
  /** The LangGraph store API's items (`/store/items`), in the same database. */
  readonly items: ItemStore;
  /**
   * Postgres only: the run queue replicas on this database share (PostgresRunQueue), listening on
   * its channel once it resolves. Undefined for SQLite: runs stay in the process (LocalRunQueue).
   */
  readonly openRunQueue?: (options: SharedRunQueueOptions) => Promise<RunQueue>;
  /** For the start-up log, e.g. "sqlite /data/threads.sqlite" (never a password). */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * The threads database in one SQLite file (the embedded default), made with its folder when missing.
 * The file is created (or set) 0600 before SQLite opens it: SQLite gives the -wal and -shm files
 * the main file's mode, so none of them is readable by other local users.
 */
export async function openSqliteStore(file: string): Promise<AgentStore> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let db: Database.Database;
  try {
    fs.closeSync(fs.openSync(file, "a", 0o600));
    fs.chmodSync(file, 0o600);
    db = await openWal(file);
    cacheStatements(db);
  } catch (error) {
    throw new ThinktankError("STORE_CORRUPT", `cannot open the threads database ${file}: ${(error as Error).message}`, { cause: error });
  }
  const database = new SqliteDatabase(db);
  return {
    checkpointer: new TurnTakingSqliteSaver(db),
    metadata: await SqlMetadataStore.open(database, { shared: false }),
    items: await SqlItemStore.open(database),
    description: `sqlite ${file}`,
    close: async () => {
      db.close();
    },
  };
}

/**
 * The threads database in Postgres at `url`, which several agent replicas may share. pg and the
 * Postgres checkpointer are loaded here, on first use, never at start-up of a SQLite agent.
 */
export async function openPostgresStore(url: string): Promise<AgentStore> {
  const { openPostgresAgentStore } = await import("./postgres-agent-store.js");
  return openPostgresAgentStore(url);
}

/**
 * Opens the file in WAL mode, waiting up to 5 s for a lock another connection holds. Switching
 * a fresh file to WAL needs the file to itself and SQLite answers SQLITE_BUSY at once rather
 * than waiting (its busy handler does not cover it): when another agent process opens the same
 * new file at that moment, the switch is tried again shortly, within the same 5 s.
 */
async function openWal(file: string): Promise<Database.Database> {
  const deadline = Date.now() + 5_000;
  for (let attempt = 1; ; attempt++) {
    const db = new Database(file, { timeout: 5_000 });
    try {
      db.pragma("journal_mode = WAL");
      return db;
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw error;
      await delay(Math.min(10 * attempt, 100));
    }
  }
}
