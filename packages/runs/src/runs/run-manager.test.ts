import crypto from "node:crypto";
import { EventEmitter, once } from "node:events";
import path from "node:path";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import { ThreadService } from "../threads/thread-service.js";
import { KeptRunEvents } from "./kept-run-events.js";
import type { RunExecutor } from "./run-executor.js";
import { serverAccess } from "../owners/access.js";
import { RunManager } from "./run-manager.js";
import type { RunRequest } from "./run-request.js";

/**
 * The run manager with a scripted executor in place of a graph (the "execute and emit" seam):
 * each run announces its start, emits one event, and ends when the test lets it or when cancelled.
 */
const temp = makeTempDir("tt-runs-");
let store: AgentStore;
let runs: RunManager;
const started = new EventEmitter();
const finishers = new Map<string, () => void>();

const execute: RunExecutor = async ({ run, signal }, emit) => {
  emit("values", JSON.stringify({ run: run.run_id }));
  const finished = new Promise<void>((resolve) => {
    finishers.set(run.run_id, resolve);
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  started.emit("run", run.run_id);
  await finished;
  return signal.aborted ? { status: "interrupted" } : { status: "success" };
};

const request = (extra: Partial<RunRequest> = {}): RunRequest => ({ assistant_id: "graph", ...extra });
const nextStart = async (): Promise<string> => (await once(started, "run"))[0] as string;

beforeEach(async () => {
  store = await openSqliteStore(path.join(temp.dir, `${crypto.randomUUID()}.sqlite`));
  const stateGraph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
  const clock = () => new Date();
  const threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "graph" } });
  runs = new RunManager({
    store,
    threads,
    clock,
    execute,
    events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 100, maxBytes: 1e9 }),
    resolveAssistant: async (id) => ({ assistant_id: id === "graph" ? "assistant-1" : id, version: 1 }),
  });
});

afterEach(async () => {
  await runs.shutdown();
  await store.close();
});

describe("RunManager", () => {
  it("runs a thread's runs one at a time in order: reject refuses a busy thread, enqueue waits its turn", async () => {
    const first = nextStart();
    const a = await runs.create("t1", request({ if_not_exists: "create" }), { access: serverAccess });
    expect(await first).toBe(a.run.run_id);
    expect(a.run).toMatchObject({ assistant_id: "assistant-1", status: "pending", multitask_strategy: "reject" });
    await expect(runs.create("t1", request(), { access: serverAccess })).rejects.toMatchObject({ code: "THREAD_BUSY" });
    const b = await runs.create("t1", request({ multitask_strategy: "enqueue" }), { access: serverAccess });
    expect(runs.inFlight("t1")).toEqual([a.run.run_id, b.run.run_id]);
    expect((await runs.get("t1", b.run.run_id, serverAccess)).status).toBe("pending");

    const second = nextStart();
    finishers.get(a.run.run_id)?.();
    expect(await second).toBe(b.run.run_id);
    expect((await runs.get("t1", a.run.run_id, serverAccess)).status).toBe("success");
    finishers.get(b.run.run_id)?.();
    await runs.join("t1", b.run.run_id, serverAccess);
    expect((await runs.get("t1", b.run.run_id, serverAccess)).status).toBe("success");
    expect(runs.inFlight("t1")).toEqual([]);
    const events: string[] = [];
    for await (const event of runs.events(b.run.run_id)?.follow() ?? []) events.push(event.event);
    expect(events).toEqual(["metadata", "values"]);
  });

  it("interrupt stops the running run; rollback stops it and deletes its record", async () => {
    const first = nextStart();
    const a = await runs.create("t2", request({ if_not_exists: "create" }), { access: serverAccess });
    await first;
    const second = nextStart();
    const b = await runs.create("t2", request({ multitask_strategy: "interrupt" }), { access: serverAccess });
    expect(await second).toBe(b.run.run_id);
    expect((await runs.get("t2", a.run.run_id, serverAccess)).status).toBe("interrupted");

    const third = nextStart();
    const c = await runs.create("t2", request({ multitask_strategy: "rollback" }), { access: serverAccess });
    expect(await third).toBe(c.run.run_id);
    await expect(runs.get("t2", b.run.run_id, serverAccess)).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
    await runs.cancel("t2", c.run.run_id, "interrupt", true, serverAccess);
    expect((await runs.get("t2", c.run.run_id, serverAccess)).status).toBe("interrupted");
    expect((await store.metadata.getThread("t2"))?.status).toBe("idle");
  });
});
