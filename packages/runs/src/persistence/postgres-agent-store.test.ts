import crypto from "node:crypto";
import pg from "pg";
import { needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { openPostgresAgentStore } from "./postgres-agent-store.js";

/**
 * Replicas starting together on a fresh database: every store creates the checkpoint tables
 * (PostgresSaver.setup and its migrations) and ours at once. Each round uses a database of its own,
 * created here and dropped after (the role at THINKTANK_TEST_POSTGRES_URL needs CREATEDB, which
 * .ci/start-postgres grants).
 */
const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
const rounds = 4;
const openersPerRound = 8;

async function withFreshDatabase(work: (databaseUrl: string) => Promise<void>): Promise<void> {
  const name = `tt_fresh_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const databaseUrl = new URL(url);
    databaseUrl.pathname = `/${name}`;
    await work(databaseUrl.toString());
  } finally {
    // A closed pool's connections end just after pool.end() resolves; FORCE would hit them as they go.
    await expect.poll(async () => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name])).rows[0].n, { timeout: 10_000 }).toBe(0);
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

describe("openPostgresAgentStore on a fresh database", needs("postgres"), () => {
  it(`opens ${openersPerRound} stores at once, ${rounds} times, without a schema race`, async () => {
    for (let round = 0; round < rounds; round++) {
      await withFreshDatabase(async (databaseUrl) => {
        const opened = await Promise.allSettled(Array.from({ length: openersPerRound }, () => openPostgresAgentStore(databaseUrl)));
        const stores = opened.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
        try {
          expect(opened.flatMap((result) => (result.status === "rejected" ? [(result.reason as Error).message] : []))).toEqual([]);
          // Each checkpoint migration ran once, and every store works on the tables.
          const check = new pg.Client({ connectionString: databaseUrl });
          await check.connect();
          const versions = (await check.query<{ v: number }>("SELECT v FROM checkpoint_migrations ORDER BY v")).rows.map((row) => row.v);
          await check.end();
          expect(versions).toEqual(versions.map((_, index) => index));
          const now = new Date().toISOString();
          await Promise.all(
            stores.map((store, index) =>
              store.metadata.createThread({ thread_id: `t${index}`, created_at: now, updated_at: now, state_updated_at: now, metadata: {}, status: "idle", values: null, interrupts: {}, error: null, owner_id: "admin" }),
            ),
          );
          expect(await stores[0]?.metadata.countThreads({})).toBe(openersPerRound);
        } finally {
          await Promise.all(stores.map((store) => store.close()));
        }
      });
    }
  });
});

describe("openPostgresAgentStore when the database ends its connections", needs("postgres"), () => {
  it("keeps the process up when idle connections are terminated, and the next query reconnects", async () => {
    await withFreshDatabase(async (databaseUrl) => {
      const store = await openPostgresAgentStore(databaseUrl);
      try {
        expect(await store.metadata.getThread("missing")).toBeUndefined();
        const name = new URL(databaseUrl).pathname.slice(1);
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          // A restart or an administrator's drop: each idle pooled client gets an error event, which
          // with no listener on the pool is an uncaught exception that ends the process (and this test).
          const terminated = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
          expect(terminated.rowCount).toBeGreaterThan(0);
          await expect.poll(async () => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name])).rows[0].n, { timeout: 10_000 }).toBe(0);
        } finally {
          await admin.end();
        }
        expect(await store.metadata.getThread("missing")).toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
});
