// Owners over both databases (issue 25): the owner column and its migration, the owner filter of
// thread searches, and store items under their owner's label. SQLite in memory; Postgres at
// THINKTANK_TEST_POSTGRES_URL in a schema of its own per test.
import crypto from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { needs } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { RunRecord, ThreadRecord } from "../persistence/agent-records.js";
import { PostgresDatabase } from "../persistence/postgres-database.js";
import { createTablesSql, itemsTable, runsTable, threadsTable, type Table } from "../persistence/schema.js";
import type { SqlDatabase } from "../persistence/sql-database.js";
import { SqlItemStore } from "../persistence/sql-item-store.js";
import { SqlMetadataStore } from "../persistence/sql-metadata-store.js";
import { SqliteDatabase } from "../persistence/sqlite-database.js";
import { StoreService } from "../store/store-service.js";
import { accessOf, ownerLabel } from "./access.js";

const postgresUrl = process.env.THINKTANK_TEST_POSTGRES_URL;
const pools: { pool: pg.Pool; schema: string }[] = [];
afterAll(async () => {
  for (const { pool, schema } of pools) {
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
  pools.push({ pool, schema });
  return new PostgresDatabase(pool);
}

const backends = [
  { name: "sqlite", shared: false, options: {}, database: async (): Promise<SqlDatabase> => new SqliteDatabase(new Database(":memory:")) },
  { name: "postgres", shared: true, options: needs("postgres"), database: postgresDatabase },
];

const alice = accessOf({ id: "usr_a11ce", name: "alice", role: "user", auth: "key" });
const bob = accessOf({ id: "usr_b0b", name: "bob", role: "user", auth: "key" });
const adminCaller = { id: "admin", name: "operator", role: "admin", auth: "key" } as const;
const clock = () => new Date("2026-03-01T00:00:00.000Z");

/** A table as it was before owners: without the owner column. */
const beforeOwners = (table: Table): Table => ({ ...table, columns: table.columns.filter((column) => column.name !== "owner_id") });

const thread = (id: string, owner: string): ThreadRecord => ({
  thread_id: id,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  state_updated_at: "2026-01-01T00:00:00.000Z",
  metadata: { tag: "x" },
  status: "idle",
  values: null,
  interrupts: {},
  error: null,
  owner_id: owner,
});

for (const { name, shared, options, database } of backends) describe(`owners over ${name}`, options, () => {
  it("adds the owner column to a database from before owners: its threads, runs and store items become the operator's, once", async () => {
    const db = await database();
    await db.exec(createTablesSql(db.dialect, [beforeOwners(threadsTable), beforeOwners(runsTable), itemsTable]));
    await db.run(`INSERT INTO thinktank_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error) VALUES ('old', 'a', 'a', 'a', '{}', 'idle', NULL, '{}', NULL)`);
    await db.run(`INSERT INTO thinktank_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy) VALUES ('r', 'old', 'a', 'a', 'a', 'success', '{}', '{}', 'reject')`);
    // Two old namespaces that would meet half-way through a one-step move: ["x"] → "admin.x" is already taken by ["admin", "x"].
    for (const namespace of ["x", "admin.x"]) {
      await db.run(`INSERT INTO thinktank_store_items (namespace, key, value, created_at, updated_at) VALUES (?, 'k', '{"n": 1}', 'a', 'a')`, [namespace]);
    }

    const metadata = await SqlMetadataStore.open(db, { shared });
    expect((await metadata.getThread("old"))?.owner_id).toBe("admin");
    expect((await metadata.getRun("r"))?.owner_id).toBe("admin");
    const operator = new StoreService(await SqlItemStore.open(db), clock);
    const own = accessOf(adminCaller);
    expect((await operator.search({ namespacePrefix: [], limit: 10, offset: 0 }, own)).map((item) => item.namespace).sort()).toEqual([["admin", "x"], ["x"]]);
    // Opened again (a restart, another replica): nothing moves twice.
    await SqlMetadataStore.open(db, { shared });
    const again = new StoreService(await SqlItemStore.open(db), clock);
    expect((await again.listNamespaces({ limit: 10, offset: 0 }, own)).sort()).toEqual([["admin", "x"], ["x"]]);
    expect(await again.get(["x"], "k", {}, alice)).toBeNull();
    // A new thread inserted without the column (an older replica) is the operator's too.
    await db.run(`INSERT INTO thinktank_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error) VALUES ('older', 'a', 'a', 'a', '{}', 'idle', NULL, '{}', NULL)`);
    expect((await metadata.getThread("older"))?.owner_id).toBe("admin");
  });

  it("filters thread searches and counts by owner, with every other filter", async () => {
    const metadata = await SqlMetadataStore.open(await database(), { shared });
    await metadata.createThread(thread("a1", alice.owner));
    await metadata.createThread(thread("a2", alice.owner));
    await metadata.createThread(thread("b1", bob.owner));
    const search = { limit: 10, offset: 0, sort_by: "thread_id" as const, sort_order: "asc" as const };
    expect((await metadata.searchThreads({ ...search, owner: alice.owner })).map((t) => t.thread_id)).toEqual(["a1", "a2"]);
    expect((await metadata.searchThreads({ ...search, owner: bob.owner, metadata: { tag: "x" } })).map((t) => t.thread_id)).toEqual(["b1"]);
    expect(await metadata.searchThreads({ ...search, owner: bob.owner, ids: ["a1", "a2"] })).toEqual([]);
    expect(await metadata.countThreads({ owner: alice.owner, metadata: { tag: "x" } })).toBe(2);
    expect(await metadata.countThreads({ owner: "usr_nobody" })).toBe(0);
    expect(await metadata.countThreads({})).toBe(3);
    const run: RunRecord = { run_id: "r", thread_id: "b1", assistant_id: "a", created_at: "a", updated_at: "a", status: "pending", metadata: {}, kwargs: {}, multitask_strategy: "reject", owner_id: "admin" };
    await metadata.createRun(run);
    expect((await metadata.getRun("r"))?.owner_id).toBe("admin");
  });

  it("keeps store items under their owner's label: no namespace a user names reaches another's items; an administrator with the scope sees them as kept", async () => {
    const store = new StoreService(await SqlItemStore.open(await database()), clock);
    await store.put({ namespace: ["memories"], key: "k", value: { who: "alice" } }, alice);
    // Naming the other user's label only nests under one's own.
    await store.put({ namespace: ["usr_b0b", "memories"], key: "k", value: { who: "alice, posing" } }, alice);
    await store.put({ namespace: ["memories"], key: "k", value: { who: "bob" } }, bob);

    expect(await store.get(["memories"], "k", {}, alice)).toMatchObject({ namespace: ["memories"], value: { who: "alice" } });
    expect(await store.get(["memories"], "k", {}, bob)).toMatchObject({ namespace: ["memories"], value: { who: "bob" } });
    expect(await store.get(["usr_a11ce", "memories"], "k", {}, bob)).toBeNull();
    expect((await store.search({ namespacePrefix: [], limit: 10, offset: 0 }, bob)).map((item) => item.value)).toEqual([{ who: "bob" }]);
    expect((await store.search({ namespacePrefix: [], query: "alice", limit: 10, offset: 0 }, bob))).toEqual([]);
    expect(await store.listNamespaces({ limit: 10, offset: 0 }, bob)).toEqual([["memories"]]);
    expect(await store.listNamespaces({ limit: 10, offset: 0 }, alice)).toEqual([["memories"], ["usr_b0b", "memories"]]);
    await store.delete(["memories"], "k", bob);
    expect(await store.get(["memories"], "k", {}, alice)).not.toBeNull();

    const adminOwn = accessOf(adminCaller);
    const adminAll = accessOf(adminCaller, "all");
    expect(await store.search({ namespacePrefix: [], limit: 10, offset: 0 }, adminOwn)).toEqual([]);
    expect(await store.listNamespaces({ limit: 10, offset: 0 }, adminAll)).toEqual([["usr_a11ce", "memories"], ["usr_a11ce", "usr_b0b", "memories"]]);
    await store.put({ namespace: ["usr_b0b", "notes"], key: "n", value: { from: "admin" } }, adminAll);
    expect(await store.get(["notes"], "n", {}, bob)).toMatchObject({ value: { from: "admin" } });
    await expect(store.put({ namespace: ["notes"], key: "n", value: {} }, adminAll)).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    // The header counts only from an administrator.
    expect(accessOf({ id: "usr_b0b", name: "bob", role: "user", auth: "key" }, "all").everyone).toBe(false);
  });

  it("gives owner ids with '.' or '%' labels of their own, one to one", async () => {
    expect(ownerLabel("jwt:a.b")).toBe("jwt:a%2Eb");
    expect(ownerLabel("jwt:a%2Eb")).toBe("jwt:a%252Eb");
    const store = new StoreService(await SqlItemStore.open(await database()), clock);
    const dotted = accessOf({ id: "jwt:a.b", name: "a.b", role: "user", auth: "jwt" });
    const escaped = accessOf({ id: "jwt:a%2Eb", name: "look-alike", role: "user", auth: "jwt" });
    await store.put({ namespace: ["m"], key: "k", value: { n: 1 } }, dotted);
    expect(await store.get(["m"], "k", {}, dotted)).toMatchObject({ namespace: ["m"], value: { n: 1 } });
    expect(await store.get(["m"], "k", {}, escaped)).toBeNull();
    expect(await store.listNamespaces({ limit: 10, offset: 0 }, escaped)).toEqual([]);
  });
});
