import crypto from "node:crypto";
import pg from "pg";

export interface FreshDatabase {
  /** The new database's URL (the server and role of THINKTANK_TEST_POSTGRES_URL). */
  readonly url: string;
  /** Drops it, ending any connection still open to it (agent processes stopped or killed). */
  drop(): Promise<void>;
}

/**
 * A database of its own on the server at THINKTANK_TEST_POSTGRES_URL (whose role has CREATEDB:
 * .ci/start-postgres grants it), for tests whose agent servers must share runs with nobody else:
 * replicas hear every run notice on their database.
 */
export async function createFreshDatabase(prefix = "tt_agent"): Promise<FreshDatabase> {
  const base = process.env.THINKTANK_TEST_POSTGRES_URL;
  if (!base) throw new Error("THINKTANK_TEST_POSTGRES_URL is not set (guard the suite with needs('postgres'))");
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        // A stopped process's connections can outlive it by a moment: FORCE ends them first (PostgreSQL 13+).
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
