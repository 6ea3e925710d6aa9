import crypto from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { needs } from "@thinktank/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { RunRecord, ThreadRecord } from "./agent-records.js";
import { PostgresDatabase } from "./postgres-database.js";
import type { SqlDatabase } from "./sql-database.js";
import { SqlMetadataStore } from "./sql-metadata-store.js";
import { SqliteDatabase } from "./sqlite-database.js";

/**
 * The one store over both databases: SQLite in memory, and Postgres at THINKTANK_TEST_POSTGRES_URL
 * in a schema of its own per test (the database is shared by runs).
 */
const postgresUrl = process.env.THINKTANK_TEST_POSTGRES_URL;
const schemas = new Map<pg.Pool, string>();
afterAll(async () => {
  for (const [pool, schema] of schemas) {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
});

async function postgresDatabase(): Promise<SqlDatabase> {
  const schema = `tt_${crypto.randomUUID().replaceAll("-", "")}`;
  const setup = new pg.Pool({ connectionString: postgresUrl });
  await setup.query(`CREATE SCHEMA ${schema}`);
  await setup.end();
  const pool = new pg.Pool({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
  schemas.set(pool, schema);
  return new PostgresDatabase(pool);
}

const backends = [
  { name: "sqlite", shared: false, options: {}, database: async (): Promise<SqlDatabase> => new SqliteDatabase(new Database(":memory:")) },
  { name: "postgres", shared: true, options: needs("postgres"), database: postgresDatabase },
];

const thread = (id: string, extra: Partial<ThreadRecord> = {}): ThreadRecord => ({
  thread_id: id,
  created_at: `2026-01-0${id.length}T00:00:00.000Z`,
  updated_at: "2026-01-01T00:00:00.000Z",
  state_updated_at: "2026-01-01T00:00:00.000Z",
  metadata: {},
  status: "idle",
  values: null,
  interrupts: {},
  error: null,
  owner_id: "admin",
  ...extra,
});

const run = (id: string, threadId: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  run_id: id,
  thread_id: threadId,
  assistant_id: "a",
  created_at: `2026-01-01T00:00:0${id.length}.000Z`,
  updated_at: "2026-01-01T00:00:00.000Z",
  status: "pending",
  metadata: {},
  kwargs: { input: { messages: [] } },
  multitask_strategy: "reject",
  owner_id: "admin",
  ...extra,
});

for (const { name, shared, options, database } of backends) describe(`SqlMetadataStore over ${name}`, options, () => {
  let store: SqlMetadataStore;
  beforeEach(async () => {
    store = await SqlMetadataStore.open(await database(), { shared });
  });

  it("stores, reads back and updates threads with their JSON fields", async () => {
    await store.createThread(thread("t", { metadata: { graph_id: "g", n: 1 }, values: { messages: [{ type: "human" }] } }));
    expect(await store.getThread("t")).toMatchObject({ metadata: { graph_id: "g", n: 1 }, values: { messages: [{ type: "human" }] } });
    const updated = await store.updateThread("t", { status: "interrupted", interrupts: { task: [{ value: 1 }] } }, "2026-02-01T00:00:00.000Z");
    expect(updated).toMatchObject({ status: "interrupted", updated_at: "2026-02-01T00:00:00.000Z", metadata: { n: 1 } });
    expect((await store.getThread("t"))?.interrupts).toEqual({ task: [{ value: 1 }] });
    expect(await store.updateThread("missing", { status: "idle" }, "x")).toBeUndefined();
  });

  it("searches by metadata, values, status and ids, sorted and paged", async () => {
    await store.createThread(thread("a", { metadata: { owner: "x" }, status: "idle" }));
    await store.createThread(thread("bb", { metadata: { owner: "x", tag: [1, 2] }, status: "busy", values: { done: false } }));
    await store.createThread(thread("ccc", { metadata: { owner: "y" } }));
    const search = { limit: 10, offset: 0, sort_by: "created_at" as const, sort_order: "asc" as const };
    expect((await store.searchThreads({ ...search, metadata: { owner: "x" } })).map((t) => t.thread_id)).toEqual(["a", "bb"]);
    expect((await store.searchThreads({ ...search, metadata: { tag: [1, 2] } })).map((t) => t.thread_id)).toEqual(["bb"]);
    expect((await store.searchThreads({ ...search, values: { done: false } })).map((t) => t.thread_id)).toEqual(["bb"]);
    expect((await store.searchThreads({ ...search, status: "busy" })).map((t) => t.thread_id)).toEqual(["bb"]);
    expect((await store.searchThreads({ ...search, ids: ["ccc", "a"] })).map((t) => t.thread_id)).toEqual(["a", "ccc"]);
    expect((await store.searchThreads({ ...search, sort_order: "desc", limit: 1, offset: 1 })).map((t) => t.thread_id)).toEqual(["bb"]);
    expect(await store.countThreads({ metadata: { owner: "x" } })).toBe(2);
  });

  it("lists runs newest first, filters by status, and deletes them with their thread", async () => {
    await store.createThread(thread("t"));
    await store.createRun(run("r", "t"));
    await store.createRun(run("rr", "t", { status: "success" }));
    expect((await store.listRuns("t", { limit: 10, offset: 0 })).map((r) => r.run_id)).toEqual(["rr", "r"]);
    expect((await store.listRuns("t", { limit: 10, offset: 0, status: "pending" })).map((r) => r.run_id)).toEqual(["r"]);
    expect((await store.getRun("r"))?.kwargs).toEqual({ input: { messages: [] } });
    expect(await store.deleteThread("t")).toBe(true);
    expect(await store.getRun("r")).toBeUndefined();
    expect(await store.deleteThread("t")).toBe(false);
  });

  it(shared ? "closes only runs no replica touched for an hour, and leaves threads to their replicas" : "closes runs a previous process left running, and frees their threads", async () => {
    await store.createThread(thread("t", { status: "busy" }));
    await store.createThread(thread("i", { status: "busy", interrupts: { task: [{}] } }));
    await store.createRun(run("r", "t", { status: "running" }));
    await store.createRun(run("done", "t", { status: "success" }));
    await store.createRun(run("recent", "i", { status: "running", updated_at: "2026-02-28T23:30:00.000Z" }));
    expect(await store.closeStaleRuns("2026-03-01T00:00:00.000Z")).toBe(shared ? 1 : 2);
    expect((await store.getRun("r"))?.status).toBe("error");
    expect((await store.getRun("done"))?.status).toBe("success");
    expect((await store.getRun("recent"))?.status).toBe(shared ? "running" : "error");
    expect((await store.getThread("t"))?.status).toBe(shared ? "busy" : "idle");
    expect((await store.getThread("i"))?.status).toBe(shared ? "busy" : "interrupted");
  });
});
