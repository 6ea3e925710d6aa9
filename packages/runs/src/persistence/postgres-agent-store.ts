import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { ThinktankError } from "@thinktank/core";
import { SqlAssistantStore } from "../assistants/sql-assistant-store.js";
import { cronsChannel, SqlCronStore } from "../crons/sql-cron-store.js";
import { PostgresRunQueue } from "../runs/postgres-run-queue.js";
import type { AgentStore } from "./agent-store.js";
import { BlobRefSaver } from "./blob-ref-saver.js";
import { safeHost } from "./postgres-connection.js";
import { PostgresDatabase } from "./postgres-database.js";
import { PostgresListener } from "./postgres-listener.js";
import { withSchemaLock } from "./schema-lock.js";
import { SqlBlobStore } from "./sql-blob-store.js";
import { SqlItemStore } from "./sql-item-store.js";
import { SqlMetadataStore } from "./sql-metadata-store.js";

/** Checkpoints (PostgresSaver), thread/run records and store items in one Postgres database; loaded only when configured. */
export async function openPostgresAgentStore(url: string): Promise<AgentStore> {
  const pool = new pg.Pool({ connectionString: url });
  // An idle client's error (the server restarted, an administrator ended the connection) must not
  // crash the process: the pool drops that client and the next query connects again.
  pool.on("error", () => undefined);
  try {
    const saver = new PostgresSaver(pool);
    const database = new PostgresDatabase(pool);
    // One replica at a time creates or migrates the schema (schema-lock.ts); the others then find it made.
    const { metadata, items, blobs, assistants, crons } = await withSchemaLock(pool, async () => {
      await saver.setup();
      return {
        metadata: await SqlMetadataStore.open(database, { shared: true }),
        items: await SqlItemStore.open(database),
        crons: await SqlCronStore.open(database),
        blobs: await SqlBlobStore.open(database),
        assistants: await SqlAssistantStore.open(database),
      };
    });
    const checkpointer = new BlobRefSaver(saver, blobs);
    const host = safeHost(url);
    return {
      checkpointer,
      metadata,
      items,
      assistants,
      crons,
      listenForCrons: async (onChange, log) => {
        const listener = new PostgresListener({
          url,
          channel: cronsChannel,
          applicationName: "thinktank crons",
          onPayload: onChange,
          onReconnect: onChange,
          onError: (error, what) => log?.error({ err: error }, what === "dropped" ? "the crons channel's connection to Postgres dropped; connecting again" : "cannot listen on the crons channel yet"),
        });
        await listener.open();
        return listener;
      },
      openRunQueue: (options) => PostgresRunQueue.open(pool, url, options),
      description: `postgres ${host}`,
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new ThinktankError("SERVICE_UNAVAILABLE", `cannot open the Postgres threads database at ${safeHost(url)}: ${(error as Error).message}`, { cause: error });
  }
}
