import { SqlAssistantStore } from "../assistants/sql-assistant-store.js";
import { SqlCronStore } from "../crons/sql-cron-store.js";
import type { RunQueue, SharedRunQueueOptions } from "../runs/run-queue.js";
import { BlobRefSaver } from "./blob-ref-saver.js";
import type { ItemStore } from "./item-store.js";
import type { MetadataStore } from "./metadata-store.js";
import { SqlBlobStore } from "./sql-blob-store.js";
import { SqlItemStore } from "./sql-item-store.js";
import { SqlMetadataStore } from "./sql-metadata-store.js";
import { SqliteDatabase } from "./sqlite-database.js";
import { openSqliteFile } from "./sqlite-file.js";
import { TurnTakingSqliteSaver } from "./turn-taking-sqlite-saver.js";

/** Where threads live: LangGraph checkpoints plus our thread/run records and store items, in one database. */
export interface AgentStore {
  /** LangGraph's saver for the database, its large strings kept once per thread (blob-ref-saver.ts; `checkpointer.blobs`). */
  readonly checkpointer: BlobRefSaver;
  readonly metadata: MetadataStore;
  /** The LangGraph store API's items (`/store/items`), in the same database. */
  readonly items: ItemStore;
  /** Assistants and their versions (AssistantService's records), in the same database. */
  readonly assistants: SqlAssistantStore;
  /** Crons and the claims of their fires (src/crons), in the same database. */
  readonly crons: SqlCronStore;
  /**
   * Postgres only: hears cron changes made on any replica (NOTIFY on `thinktank_crons`, and a
   * reconnection, after which notices may have been missed): the cron scheduler re-plans on each.
   */
  readonly listenForCrons?: (onChange: () => void, log?: { error(fields: object, message: string): void }) => Promise<{ close(): Promise<void> }>;
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
  const db = await openSqliteFile(file);
  const database = new SqliteDatabase(db);
  return {
    checkpointer: new BlobRefSaver(new TurnTakingSqliteSaver(db), await SqlBlobStore.open(database)),
    metadata: await SqlMetadataStore.open(database, { shared: false }),
    items: await SqlItemStore.open(database),
    crons: await SqlCronStore.open(database),
    assistants: await SqlAssistantStore.open(database),
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
