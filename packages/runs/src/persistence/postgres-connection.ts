import pg from "pg";
import { ThinktankError } from "@thinktank/core";
import { PostgresDatabase } from "./postgres-database.js";
import { withSchemaLock } from "./schema-lock.js";
import type { SqlConnection } from "./sql-connection.js";

/** A pool of `size` connections (at least 2: the schema lock holds one while set-up runs on another). */
export async function openPostgresPool(url: string, size: number): Promise<SqlConnection> {
  const pool = new pg.Pool({ connectionString: url, max: Math.max(2, size) });
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new ThinktankError("SERVICE_UNAVAILABLE", `cannot open the Postgres threads database at ${safeHost(url)}: ${(error as Error).message}`, { cause: error });
  }
  return {
    database: new PostgresDatabase(pool),
    description: `postgres ${safeHost(url)}`,
    url,
    setUp: (work) => withSchemaLock(pool, work),
    close: () => pool.end(),
  };
}

/** host:port/database of a Postgres URL, for logs and errors (never the password). */
export function safeHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
}
