import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import type { RunRecord, ThreadRecord } from "./agent-records.js";
import { SqliteMetadataStore } from "./sqlite-metadata-store.js";

let store: SqliteMetadataStore;
beforeEach(() => {
  store = new SqliteMetadataStore(new Database(":memory:"));
});

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
  ...extra,
});

describe("SqliteMetadataStore", () => {
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

  it("closes runs a previous process left running, and frees their threads", async () => {
    await store.createThread(thread("t", { status: "busy" }));
    await store.createThread(thread("i", { status: "busy", interrupts: { task: [{}] } }));
    await store.createRun(run("r", "t", { status: "running" }));
    await store.createRun(run("done", "t", { status: "success" }));
    expect(await store.closeStaleRuns("2026-03-01T00:00:00.000Z")).toBe(1);
    expect((await store.getRun("r"))?.status).toBe("error");
    expect((await store.getRun("done"))?.status).toBe("success");
    expect((await store.getThread("t"))?.status).toBe("idle");
    expect((await store.getThread("i"))?.status).toBe("interrupted");
  });
});
