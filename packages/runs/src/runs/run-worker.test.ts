import crypto from "node:crypto";
import path from "node:path";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { makeTempDir, needs } from "@thinktank/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunRecord } from "../persistence/agent-records.js";
import { openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import { openPostgresAgentStore } from "../persistence/postgres-agent-store.js";
import { serverAccess } from "../owners/access.js";
import { ThreadService, type ThreadStateGraph } from "../threads/thread-service.js";
import { KeptRunEvents } from "./kept-run-events.js";
import { LocalRunQueue } from "./local-run-queue.js";
import type { RunExecutor } from "./run-executor.js";
import { RunManager } from "./run-manager.js";
import type { RunQueue } from "./run-queue.js";

/**
 * A run's finish can never leave it unended, whatever throws in it: the thread's state read
 * (ThreadService.refresh, through the ThreadStateGraph seam), the executor, recording the end (the
 * RunQueue seam). The run always ends success, error or interrupted, the thread always leaves busy,
 * and a cancelled run never records success. On SQLite (LocalRunQueue) and, with
 * THINKTANK_TEST_POSTGRES_URL, on Postgres (PostgresRunQueue, as replicas run).
 */
const temp = makeTempDir("tt-run-worker-");
let store: AgentStore;
let runs: RunManager;
/** What the seams do wrong in a test. */
let faults: { getState?: () => Promise<void>; execute?: "throw"; endFailures?: number; cancelled?: () => void };

const execute: RunExecutor = async ({ run }, emit) => {
  if (faults.execute === "throw") throw new Error("the executor broke its contract");
  emit("values", JSON.stringify({ run: run.run_id }));
  return { status: "success" };
};

/** The queue with an `end` that fails while faults.endFailures says so. */
function flaky(queue: RunQueue): RunQueue {
  return new Proxy(queue, {
    get(target, key) {
      if (key === "cancel") {
        return async (...args: Parameters<RunQueue["cancel"]>) => {
          const answer = await target.cancel(...args);
          faults.cancelled?.();
          return answer;
        };
      }
      if (key === "end") {
        return async (...args: Parameters<RunQueue["end"]>) => {
          if ((faults.endFailures ?? 0) > 0) {
            faults.endFailures = (faults.endFailures ?? 0) - 1;
            throw new Error("the database went away for a moment");
          }
          return target.end(...args);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
const database = `tt_worker_${crypto.randomUUID().replaceAll("-", "")}`;
const databaseUrl = url ? Object.assign(new URL(url), { pathname: `/${database}` }).toString() : "";

for (const backend of ["sqlite", "postgres"] as const) {
  describe(`RunWorker's finish (${backend})`, { timeout: 30_000, ...(backend === "postgres" ? needs("postgres") : {}) }, () => {
    let admin: pg.Client | undefined;
    beforeAll(async () => {
      if (backend !== "postgres") return;
      admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
    });
    afterAll(async () => {
      if (!admin) return;
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    });

    beforeEach(async () => {
      faults = {};
      store = backend === "postgres" ? await openPostgresAgentStore(databaseUrl) : await openSqliteStore(path.join(temp.dir, `${crypto.randomUUID()}.sqlite`));
      const shared = await store.openRunQueue?.({ heartbeatSeconds: 0.2, staleAfterSeconds: 5, clock: () => new Date() });
      const graph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
      // The seam the thread service reads state through: getState fails (or stalls) when a test says so.
      const stateGraph: ThreadStateGraph = {
        getState: async (config) => {
          await faults.getState?.();
          return graph.getState(config);
        },
        getStateHistory: (config, options) => graph.getStateHistory(config, options),
        updateState: (config, values, asNode) => graph.updateState(config, values, asNode),
        bulkUpdateState: (config, supersteps) => graph.bulkUpdateState(config, supersteps),
        getGraphAsync: (config) => graph.getGraphAsync(config),
      };
      const clock = () => new Date();
      const threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "graph" } });
      runs = new RunManager({
        store,
        threads,
        clock,
        execute,
        queue: flaky(shared ?? new LocalRunQueue(store.metadata)),
        events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 100, maxBytes: 1e9 }),
        resolveAssistant: async (id) => ({ assistant_id: id, version: 1 }),
      });
    });

    afterEach(async () => {
      await runs.shutdown();
      await store.close();
    });

    const request = { assistant_id: "graph", if_not_exists: "create" } as const;
    const unreadable = async () => {
      throw new Error("a checkpoint this graph cannot load");
    };

    async function ended(threadId: string, runId: string) {
      const result = await runs.join(threadId, runId, serverAccess);
      return { result, run: (await runs.get(threadId, runId, serverAccess)).status, thread: (await store.metadata.getThread(threadId))?.status, inFlight: runs.inFlight(threadId) };
    }

    it("a thread state that cannot be read after the run: the run ends error with __error__, the thread leaves busy as error", async () => {
      faults.getState = unreadable;
      const { run } = await runs.create("t-unreadable", request, { access: serverAccess });
      expect(await ended("t-unreadable", run.run_id)).toEqual({ result: { __error__: { error: "INTERNAL", message: expect.stringContaining("state could not be read") } }, run: "error", thread: "error", inFlight: [] });
      const thread = await store.metadata.getThread("t-unreadable");
      expect(thread?.error).toMatchObject({ error: "INTERNAL" });
      // Its stream says so too.
      const events: string[] = [];
      for await (const event of runs.events(run.run_id)?.follow() ?? []) events.push(event.event);
      expect(events).toEqual(["metadata", "values", "error"]);
      // The thread takes its next run (reject strategy: it is not busy), which ends normally once the state reads again.
      faults.getState = undefined;
      const next = await runs.create("t-unreadable", request, { access: serverAccess });
      expect(await ended("t-unreadable", next.run.run_id)).toMatchObject({ run: "success", thread: "idle" });
    });

    it("an executor that throws: the run ends error and the thread leaves busy", async () => {
      faults.execute = "throw";
      const { run } = await runs.create("t-throws", request, { access: serverAccess });
      expect(await ended("t-throws", run.run_id)).toEqual({ result: { __error__: { error: "INTERNAL", message: expect.any(String) } }, run: "error", thread: "error", inFlight: [] });
      const events: string[] = [];
      for await (const event of runs.events(run.run_id)?.follow() ?? []) events.push(event.event);
      expect(events).toEqual(["metadata", "error"]);
    });

    it("recording the end fails once: it is recorded on the second try, as error", async () => {
      faults.endFailures = 1;
      const { run } = await runs.create("t-end", request, { access: serverAccess });
      expect(await ended("t-end", run.run_id)).toMatchObject({ result: { __error__: { error: "INTERNAL" } }, run: "error", thread: "error", inFlight: [] });
      const events: string[] = [];
      for await (const event of runs.events(run.run_id)?.follow() ?? []) events.push(event.event);
      expect(events).toEqual(["metadata", "values", "error"]);
    });

    it("a run cancelled while its finish is stuck reading the state ends interrupted, never success", async () => {
      let release!: () => void;
      let reached!: () => void;
      const stuck = new Promise<void>((resolve) => (reached = resolve));
      faults.getState = () => {
        reached();
        return new Promise<void>((resolve) => (release = resolve));
      };
      const { run } = await runs.create("t-stuck", request, { access: serverAccess });
      await stuck;
      const queueCancelled = new Promise<void>((resolve) => (faults.cancelled = resolve));
      const cancelled = runs.cancel("t-stuck", run.run_id, "interrupt", true, serverAccess);
      // The finish goes on only once the cancel has reached the run: the queue has it, and RunManager marks the
      // run cancelled as the queue answers (before the next macrotask). Released earlier, a finish that wins
      // the race rightly ends success (on Postgres the cancel's reads and writes take round trips).
      await queueCancelled;
      await new Promise((resolve) => setImmediate(resolve));
      faults.getState = undefined;
      release();
      await cancelled;
      expect(await ended("t-stuck", run.run_id)).toMatchObject({ run: "interrupted", thread: "idle", inFlight: [] });
    });

    // One process (SQLite): a record nothing holds is an orphan. On Postgres a running row nobody heartbeats is marked by the stale rule instead.
    it.skipIf(backend === "postgres")("cancelling a run record that nothing holds (left running) ends it interrupted and frees its thread", async () => {
      await runs.create("t-orphan", request, { access: serverAccess }).then(({ run }) => runs.join("t-orphan", run.run_id, serverAccess));
      const now = new Date().toISOString();
      const orphan: RunRecord = { run_id: crypto.randomUUID(), thread_id: "t-orphan", assistant_id: "graph", created_at: now, updated_at: now, status: "running", metadata: {}, kwargs: {}, multitask_strategy: "reject", owner_id: "admin" };
      await store.metadata.createRun(orphan);
      await store.metadata.updateThread("t-orphan", { status: "busy" }, now);
      await runs.cancel("t-orphan", orphan.run_id, "interrupt", true, serverAccess);
      expect((await runs.get("t-orphan", orphan.run_id, serverAccess)).status).toBe("interrupted");
      expect((await store.metadata.getThread("t-orphan"))?.status).toBe("idle");
    });
  });
}
