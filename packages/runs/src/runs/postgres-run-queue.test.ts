import crypto from "node:crypto";
import { EventEmitter, once } from "node:events";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import pg from "pg";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../persistence/agent-records.js";
import type { AgentStore } from "../persistence/agent-store.js";
import { openPostgresAgentStore } from "../persistence/postgres-agent-store.js";
import { ThreadService } from "../threads/thread-service.js";
import { KeptRunEvents } from "./kept-run-events.js";
import type { RunExecutor } from "./run-executor.js";
import { serverAccess } from "../owners/access.js";
import { RunManager } from "./run-manager.js";
import type { RunRequest } from "./run-request.js";

/**
 * Two run managers ("replicas" a and b) over one fresh Postgres database, each with its own store,
 * pool and PostgresRunQueue, as two agent servers have. The executor is scripted: each run says
 * where it started and ends when the test lets it or when cancelled. (The same with real agent
 * processes: apps/agent/test/scale-out-*.test.ts.)
 */
const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
const database = `tt_queue_${crypto.randomUUID().replaceAll("-", "")}`;
const databaseUrl = (() => {
  if (!url) return "";
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
})();

interface Replica {
  readonly name: string;
  readonly store: AgentStore;
  readonly runs: RunManager;
}

const started = new EventEmitter();
const finishers = new Map<string, () => void>();
/** Run ids as their executions started, with the replica that executed each, and the runs of a thread running at once at most. */
const executions: { runId: string; replica: string }[] = [];
const running = new Map<string, number>();
let mostAtOnce = 0;

const executorOf =
  (replica: string): RunExecutor =>
  async ({ run, signal }, emit) => {
    executions.push({ runId: run.run_id, replica });
    const now = (running.get(run.thread_id) ?? 0) + 1;
    running.set(run.thread_id, now);
    mostAtOnce = Math.max(mostAtOnce, now);
    emit("values", JSON.stringify({ run: run.run_id }));
    const finished = new Promise<void>((resolve) => {
      finishers.set(run.run_id, resolve);
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    started.emit(run.run_id, replica);
    if ((run.kwargs as { input?: { finish?: boolean } }).input?.finish) finishers.get(run.run_id)?.();
    await finished;
    running.set(run.thread_id, (running.get(run.thread_id) ?? 1) - 1);
    return signal.aborted ? { status: "interrupted" } : { status: "success" };
  };

async function openReplica(name: string, runs: { heartbeatSeconds: number; staleAfterSeconds: number }): Promise<Replica> {
  const store = await openPostgresAgentStore(databaseUrl);
  const clock = () => new Date();
  const stateGraph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
  const threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "graph" } });
  const queue = await store.openRunQueue?.({ ...runs, clock, replicaId: name });
  const manager = new RunManager({
    store,
    threads,
    clock,
    queue,
    execute: executorOf(name),
    events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 100, maxBytes: 1e9 }),
    resolveAssistant: async (id) => ({ assistant_id: id, version: 1 }),
  });
  return { name, store, runs: manager };
}

const request = (extra: Partial<RunRequest> = {}): RunRequest => ({ assistant_id: "graph", ...extra });
/** Where a run started executing; it may have started before its create returned (create's last steps come after admission). */
const startOf = async (runId: string): Promise<string> => executions.find((execution) => execution.runId === runId)?.replica ?? ((await once(started, runId))[0] as string);

describe("PostgresRunQueue: runs shared by two replicas", { timeout: 60_000, ...needs("postgres") }, () => {
  let a: Replica;
  let b: Replica;
  let admin: pg.Client;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    // a finds stale runs within a second; b heartbeats normally.
    [a, b] = await Promise.all([openReplica("a", { heartbeatSeconds: 0.2, staleAfterSeconds: 1 }), openReplica("b", { heartbeatSeconds: 0.2, staleAfterSeconds: 1 })]);
  });

  afterAll(async () => {
    for (const replica of [a, b]) {
      await replica?.runs.shutdown();
      await replica?.store.close();
    }
    if (!admin) return;
    // A closed pool's backends exit just after pool.end() resolves; DROP DATABASE itself waits (up to 5 s) for
    // them to exit, and fails if a connection is still open (without FORCE, so a leak shows here).
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  });

  it("runs a thread's runs one at a time in creation order, wherever they were created; reject sees the other replica's run", async () => {
    const thread = `t-order-${crypto.randomUUID()}`;
    const first = await a.runs.create(thread, request({ if_not_exists: "create" }), { access: serverAccess });
    expect(await startOf(first.run.run_id)).toBe("a");
    await expect(b.runs.create(thread, request(), { access: serverAccess })).rejects.toMatchObject({ code: "THREAD_BUSY" });
    const queued: RunRecord[] = [];
    for (let index = 0; index < 6; index++) queued.push((await (index % 2 ? a : b).runs.create(thread, request({ multitask_strategy: "enqueue", input: { finish: true } }), { access: serverAccess })).run);
    expect(await b.runs.inFlightRuns(thread, serverAccess)).toEqual([first.run.run_id, ...queued.map((run) => run.run_id)]);
    finishers.get(first.run.run_id)?.();
    await a.runs.join(thread, queued.at(-1)?.run_id as string, serverAccess);
    const order = executions.filter((execution) => [first.run, ...queued].some((run) => run.run_id === execution.runId));
    const byCreation = [first.run, ...queued].sort((x, y) => x.created_at.localeCompare(y.created_at)).map((run) => run.run_id);
    expect(order.map((execution) => execution.runId)).toEqual(byCreation);
    // Each run executed on the replica that admitted it.
    expect(order.map((execution) => execution.replica)).toEqual(["a", "b", "a", "b", "a", "b", "a"]);
    expect(mostAtOnce).toBe(1);
    expect((await a.runs.list(thread, { limit: 10, offset: 0 }, serverAccess)).map((run) => run.status)).toEqual(Array(7).fill("success"));
    expect((await a.store.metadata.getThread(thread))?.status).toBe("idle");
  });

  it("cancels from one replica a run executing on the other, and joins it there", async () => {
    const thread = `t-cancel-${crypto.randomUUID()}`;
    const { run } = await b.runs.create(thread, request({ if_not_exists: "create" }), { access: serverAccess });
    expect(await startOf(run.run_id)).toBe("b");
    expect(a.runs.isActive(run.run_id)).toBe(false);
    const joined = a.runs.join(thread, run.run_id, serverAccess);
    await a.runs.cancel(thread, run.run_id, "interrupt", true, serverAccess);
    expect((await a.runs.get(thread, run.run_id, serverAccess)).status).toBe("interrupted");
    await joined;
    // interrupt: the next run on a cancels b's running one
    const { run: second } = await b.runs.create(thread, request(), { access: serverAccess });
    await startOf(second.run_id);
    const { run: third } = await a.runs.create(thread, request({ multitask_strategy: "rollback", input: { finish: true } }), { access: serverAccess });
    await a.runs.join(thread, third.run_id, serverAccess);
    await expect(a.runs.get(thread, second.run_id, serverAccess)).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
    expect((await b.runs.get(thread, third.run_id, serverAccess)).status).toBe("success");
  });

  it("marks a running run error when its replica stops heartbeating, and takes over the pending runs that replica held", async () => {
    const thread = `t-stale-${crypto.randomUUID()}`;
    const { run } = await a.runs.create(thread, request({ if_not_exists: "create" }), { access: serverAccess });
    await startOf(run.run_id);
    // A replica that admitted a run, then stopped: its rows as it left them, owned by a heartbeat that went silent.
    const pool = new pg.Pool({ connectionString: databaseUrl });
    const now = new Date().toISOString();
    const dead = (runId: string, status: string, createdAt: string) =>
      pool.query(
        `INSERT INTO thinktank_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, owner, heartbeat_at)
         VALUES ($1, $2, 'graph', $3, $3, $4, '{}', '{"assistant_id":"graph","input":{"finish":true}}', 'enqueue', 'gone', extract(epoch from clock_timestamp()) - 60)`,
        [runId, thread, createdAt, status],
      );
    const orphan = crypto.randomUUID();
    await dead(orphan, "pending", new Date(Date.parse(now) + 1000).toISOString());
    const taken = startOf(orphan);
    finishers.get(run.run_id)?.();
    expect(await taken).toMatch(/^[ab]$/);
    await a.runs.join(thread, orphan, serverAccess);
    expect((await b.runs.get(thread, orphan, serverAccess)).status).toBe("success");

    const silent = crypto.randomUUID();
    await dead(silent, "running", new Date(Date.parse(now) + 2000).toISOString());
    expect(await b.runs.join(thread, silent, serverAccess)).toEqual({ __error__: { error: "REPLICA_STOPPED", message: expect.stringMatching(/^the agent server executing it stopped: no heartbeat for \d+ s$/) } });
    expect((await a.runs.get(thread, silent, serverAccess)).status).toBe("error");
    expect((await a.store.metadata.getThread(thread))?.status).toBe("error");
    await pool.end();
  });

  it("waits after_seconds before a run starts, and ends a delayed run cancelled meanwhile at once", async () => {
    const thread = `t-after-${crypto.randomUUID()}`;
    const admitted = performance.now();
    const { run } = await b.runs.create(thread, request({ if_not_exists: "create", after_seconds: 0.5, input: { finish: true } }), { access: serverAccess });
    await startOf(run.run_id);
    expect(performance.now() - admitted).toBeGreaterThanOrEqual(500);
    await b.runs.join(thread, run.run_id, serverAccess);
    const { run: delayed } = await a.runs.create(thread, request({ after_seconds: 600 }), { access: serverAccess });
    await b.runs.cancel(thread, delayed.run_id, "interrupt", true, serverAccess);
    expect((await a.runs.get(thread, delayed.run_id, serverAccess)).status).toBe("interrupted");
    expect(executions.some((execution) => execution.runId === delayed.run_id)).toBe(false);
  });

  it("a replica that shuts down ends the runs it holds pending at once, interrupted, without waiting their turn", async () => {
    const c = await openReplica("c", { heartbeatSeconds: 0.2, staleAfterSeconds: 1 });
    const thread = `t-shutdown-${crypto.randomUUID()}`;
    const { run } = await a.runs.create(thread, request({ if_not_exists: "create" }), { access: serverAccess });
    await startOf(run.run_id);
    const { run: waiting } = await c.runs.create(thread, request({ multitask_strategy: "enqueue" }), { access: serverAccess });
    await c.runs.shutdown();
    await c.store.close();
    expect((await a.runs.get(thread, waiting.run_id, serverAccess)).status).toBe("interrupted");
    expect((await a.store.metadata.getThread(thread))?.status).toBe("busy");
    finishers.get(run.run_id)?.();
    await a.runs.join(thread, run.run_id, serverAccess);
    expect((await a.runs.get(thread, run.run_id, serverAccess)).status).toBe("success");
    expect((await a.store.metadata.getThread(thread))?.status).toBe("idle");
  });

  it("stops a run taken from its replica (marked error elsewhere) and records nothing over it", async () => {
    const thread = `t-lost-${crypto.randomUUID()}`;
    const { run } = await b.runs.create(thread, request({ if_not_exists: "create" }), { access: serverAccess });
    await startOf(run.run_id);
    const pool = new pg.Pool({ connectionString: databaseUrl });
    await pool.query("UPDATE thinktank_runs SET status = 'error', owner = NULL WHERE run_id = $1", [run.run_id]);
    await pool.end();
    await expect.poll(() => b.runs.isActive(run.run_id), { timeout: 5_000 }).toBe(false);
    expect((await b.runs.get(thread, run.run_id, serverAccess)).status).toBe("error");
  });
});
