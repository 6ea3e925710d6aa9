import fs from "node:fs";
import path from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import Database from "better-sqlite3";
import { ThinktankError, type Config } from "@thinktank/core";
import type { ItemStore } from "./item-store.js";
import type { MetadataStore } from "./metadata-store.js";
import { SqliteItemStore } from "./sqlite-item-store.js";
import { SqliteMetadataStore } from "./sqlite-metadata-store.js";
import { cacheStatements } from "./statement-cache.js";
import { TurnTakingSqliteSaver } from "./turn-taking-sqlite-saver.js";

/** Where threads live: LangGraph checkpoints plus our thread/run records and store items, in one database. */
export interface AgentStore {
  readonly checkpointer: BaseCheckpointSaver;
  readonly metadata: MetadataStore;
  /** The LangGraph store API's items (`/store/items`), in the same database. */
  readonly items: ItemStore;
  /** For the start-up log, e.g. "sqlite /data/threads.sqlite" (never a password). */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * Opens the store config.agent.threads names: SQLite at `sqlite_path` (default), or Postgres at
 * the URL in the environment variable `postgres_url_env` (config.env, not process.env).
 */
export async function openAgentStore(config: Config): Promise<AgentStore> {
  const threads = config.agent.threads;
  if (threads.backend === "postgres") {
    const url = config.env[threads.postgres_url_env];
    if (!url) {
      throw new ThinktankError(
        "NOT_CONFIGURED",
        `agent.threads.backend is postgres, but the environment variable ${threads.postgres_url_env} (agent.threads.postgres_url_env) is not set: set it to a postgres:// URL.`,
        { details: { variable: threads.postgres_url_env } },
      );
    }
    const { openPostgresStore } = await import("./open-postgres-store.js");
    return openPostgresStore(url);
  }
  return openSqliteStore(threads.sqlite_path);
}

export function openSqliteStore(file: string): AgentStore {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    cacheStatements(db);
  } catch (error) {
    throw new ThinktankError("STORE_CORRUPT", `cannot open the threads database ${file}: ${(error as Error).message}`, { cause: error });
  }
  return {
    checkpointer: new TurnTakingSqliteSaver(db),
    metadata: new SqliteMetadataStore(db),
    items: new SqliteItemStore(db),
    description: `sqlite ${file}`,
    close: async () => {
      db.close();
    },
  };
}
