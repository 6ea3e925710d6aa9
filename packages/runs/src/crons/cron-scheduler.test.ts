import crypto from "node:crypto";
import { EventEmitter } from "node:events";
import Database from "better-sqlite3";
import path from "node:path";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import type { Access } from "../owners/access.js";
import { KeptRunEvents } from "../runs/kept-run-events.js";
import type { RunExecutor } from "../runs/run-executor.js";
import { RunManager } from "../runs/run-manager.js";
import { ThreadService } from "../threads/thread-service.js";
import { CronScheduler, type CronFire, type CronSchedulerOptions } from "./cron-scheduler.js";
import { CronService } from "./cron-service.js";

/**
 * The scheduler and the service over a real SQLite store and a real RunManager whose executor is
 * a stand-in for the graph (it answers at once, or fails when the input says so). Seconds-level
 * schedules with a 1 s minimum interval; every wait is on a fire event, never a fixed sleep.
 */
const temp = makeTempDir("tt-crons-");
const alice: Access = { owner: "usr_alice", anyById: false, everyone: false };
const bob: Access = { owner: "usr_bob", anyById: false, everyone: false };
let store: AgentStore;
let file: string;
let runs: RunManager;
let threads: ThreadService;
let service: CronService;
let scheduler: CronScheduler | undefined;
const fires = new EventEmitter();
const seen: CronFire[] = [];
const taken = new Set<CronFire>();

const execute: RunExecutor = async ({ request }) => {
  const fail = JSON.stringify(request.input ?? "").includes("fail");
  return fail ? { status: "error", error: { error: "BOOM", message: "the input said fail" } } : { status: "success" };
};

function startScheduler(extra: Partial<CronSchedulerOptions> = {}): CronScheduler {
  scheduler = new CronScheduler({
    store: store.crons,
    runs,
    runExists: async (runId) => (await store.metadata.getRun(runId)) !== undefined,
    clock: () => new Date(),
    replicaId: "here",
    staleAfterMs: 0,
    pollMs: 1000,
    maxConsecutiveFailures: 2,
    onMissed: "catch_up",
    missedAfterMs: 5000,
    onFire: (fire) => {
      seen.push(fire);
      fires.emit("fire", fire);
    },
    ...extra,
  });
  void scheduler.start();
  return scheduler;
}

/**
 * The first fire of the cron (with that outcome, when given) not taken by an earlier call, from every
 * fire heard: a listener that stays on, so fires reported in the same tick are all seen.
 */
function nextFire(cronId: string, outcome?: CronFire["outcome"]): Promise<CronFire> {
  return new Promise((resolve) => {
    const take = (): boolean => {
      const fire = seen.find((each) => !taken.has(each) && each.cronId === cronId && (!outcome || each.outcome === outcome));
      if (!fire) return false;
      taken.add(fire);
      fires.off("fire", take);
      resolve(fire);
      return true;
    };
    if (!take()) fires.on("fire", take);
  });
}

beforeEach(async () => {
  seen.length = 0;
  file = path.join(temp.dir, `${crypto.randomUUID()}.sqlite`);
  store = await openSqliteStore(file);
  const stateGraph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
  const clock = () => new Date();
  threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "graph" } });
  const resolveAssistant = async (id: string) => {
    if (id !== "graph") throw new ThinktankError("ASSISTANT_NOT_FOUND", `no assistant ${id}`);
    return { assistant_id: "graph", version: 1 };
  };
  runs = new RunManager({ store, threads, clock, execute, events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 1000, maxBytes: 1e9 }), resolveAssistant });
  service = new CronService({ store: store.crons, threads, resolveAssistant, clock, minIntervalSeconds: 1, maxPerOwner: 3, changed: () => scheduler?.wake() });
});

afterEach(async () => {
  await scheduler?.close();
  scheduler = undefined;
  await runs.shutdown();
  await store.close();
});

describe("crons", () => {
  it("fires a seconds-level cron on a thread on time, each fire a run of the owner's listed on the thread", async () => {
    const thread = await threads.create({}, alice);
    startScheduler();
    const cron = await service.create(thread.thread_id, { assistant_id: "graph", schedule: "* * * * * *", input: { messages: [] }, metadata: { team: "a" } }, alice);
    expect(cron).toMatchObject({ thread_id: thread.thread_id, user_id: "usr_alice", enabled: true, payload: { input: { messages: [] } } });
    const first = await nextFire(cron.cron_id, "fired");
    const second = await nextFire(cron.cron_id, "fired");
    expect(second.scheduledFor - first.scheduledFor).toBe(1000);
    for (const fire of [first, second]) expect(fire.firedAt - fire.scheduledFor).toBeLessThan(500);
    const listed = await runs.list(thread.thread_id, { limit: 10, offset: 0 }, alice);
    const fired = listed.filter((run) => run.metadata?.cron_id === cron.cron_id).map((run) => run.run_id);
    expect(fired).toEqual(expect.arrayContaining([first.runId, second.runId]));
    const run = listed.find((each) => each.run_id === first.runId);
    expect(run).toMatchObject({ owner_id: "usr_alice", metadata: { team: "a", scheduled_for: new Date(first.scheduledFor).toISOString() } });
    expect(run?.metadata?.catch_up).toBeUndefined();
  });

  it("refuses bad input with 422 INVALID_CRON naming the field, and keeps owners apart", async () => {
    const strict = new CronService({ store: store.crons, threads, resolveAssistant: async () => ({ assistant_id: "graph" }), clock: () => new Date(), minIntervalSeconds: 60, maxPerOwner: 2 });
    const refused = async (body: object, field: string, code = "INVALID_CRON") => expect(strict.create(undefined, { assistant_id: "graph", ...body }, alice)).rejects.toMatchObject({ code, details: { field } });
    await refused({ schedule: "every morning" }, "schedule");
    await refused({ schedule: "61 * * * *" }, "schedule");
    await refused({ schedule: "*/10 * * * * *" }, "schedule");
    await refused({ schedule: "0,30 * * * * *" }, "schedule");
    await refused({ schedule: "0 8 * * *", timezone: "Mars/Olympus" }, "timezone");
    await refused({ schedule: "0 8 * * *", end_time: "2001-01-01T00:00:00Z" }, "end_time");
    await refused({ schedule: "0 8 * * *", end_time: "tomorrow" }, "end_time");
    await refused({ schedule: "0 8 * * *", webhook: "https://example.com/hook" }, "webhook", "UNSUPPORTED_FIELD");
    await refused({ schedule: "0 8 * * *", durability: "exit" }, "durability", "UNSUPPORTED_FIELD");
    await refused({ schedule: "0 8 * * *", surprise: 1 }, "surprise");
    await expect(strict.create(undefined, { assistant_id: "graph", schedule: "0 8 * * *", input: { messages: 42 } }, alice)).rejects.toMatchObject({ code: "INVALID_STATE_INPUT", details: { field: "input.messages" } });
    const thread = await threads.create({}, alice);
    await expect(strict.create(thread.thread_id, { assistant_id: "graph", schedule: "0 8 * * *", on_run_completed: "keep" }, alice)).rejects.toMatchObject({ code: "INVALID_CRON", details: { field: "on_run_completed" } });
    await expect(strict.create(thread.thread_id, { assistant_id: "graph", schedule: "0 8 * * *" }, bob)).rejects.toMatchObject({ code: "THREAD_NOT_FOUND" });

    const daily = await strict.create(undefined, { assistant_id: "graph", schedule: "0 8 * * 1-5", timezone: "Europe/Berlin" }, alice);
    expect(daily).toMatchObject({ thread_id: null, on_run_completed: "delete", timezone: "Europe/Berlin" });
    const berlinHour = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", hourCycle: "h23" }).format(new Date(daily.next_run_date as string));
    expect(berlinHour).toBe("08");
    await strict.create(undefined, { assistant_id: "graph", schedule: "0 9 * * *" }, alice);
    await expect(strict.create(undefined, { assistant_id: "graph", schedule: "0 10 * * *" }, alice)).rejects.toMatchObject({ code: "CRON_LIMIT_REACHED" });
    expect(await strict.create(undefined, { assistant_id: "graph", schedule: "0 10 * * *" }, bob)).toMatchObject({ user_id: "usr_bob" });

    await expect(strict.get(daily.cron_id, bob)).rejects.toMatchObject({ code: "CRON_NOT_FOUND" });
    await expect(strict.update(daily.cron_id, { enabled: false }, bob)).rejects.toMatchObject({ code: "CRON_NOT_FOUND" });
    await expect(strict.delete(daily.cron_id, bob)).rejects.toMatchObject({ code: "CRON_NOT_FOUND" });
    expect(await strict.count({}, alice)).toBe(2);
    expect(await strict.count({}, bob)).toBe(1);
    expect(await strict.count({}, { owner: "admin", anyById: true, everyone: true })).toBe(3);
    expect(await strict.search({ limit: 10, offset: 0, sort_by: "created_at", sort_order: "asc", select: ["cron_id", "schedule"] }, bob)).toEqual([{ cron_id: expect.any(String), schedule: "0 10 * * *" }]);

    const paused = await strict.update(daily.cron_id, { enabled: false }, alice);
    expect(paused).toMatchObject({ enabled: false, next_run_date: null });
    await expect(strict.update(daily.cron_id, { schedule: "* * * * * *" }, alice)).rejects.toMatchObject({ code: "INVALID_CRON", details: { field: "schedule" } });
    const resumed = await strict.update(daily.cron_id, { enabled: true, input: { messages: [{ type: "human", content: "hi" }] } }, alice);
    expect(resumed).toMatchObject({ enabled: true, next_run_date: expect.any(String), payload: { input: { messages: [{ content: "hi" }] } } });
  });

  it("fires a time missed while nothing ran once, with metadata.catch_up, and goes on from now", async () => {
    const cron = await service.create(undefined, { assistant_id: "graph", schedule: "* * * * * *", on_run_completed: "keep" }, alice);
    const missedAt = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    await store.crons.update(cron.cron_id, { next_run_at: missedAt });
    startScheduler();
    const caught = await nextFire(cron.cron_id);
    expect(caught).toMatchObject({ outcome: "caught_up", scheduledFor: missedAt });
    const run = await store.metadata.getRun(caught.runId as string);
    expect(run?.metadata).toMatchObject({ catch_up: true, cron_id: cron.cron_id, scheduled_for: new Date(missedAt).toISOString(), missed_times: expect.any(Number) });
    expect(run?.metadata.missed_times).toBeGreaterThanOrEqual(60);
    const after = await nextFire(cron.cron_id);
    expect(after.outcome).toBe("fired");
    expect(after.scheduledFor).toBeGreaterThan(caught.firedAt - 1000);
    expect(seen.filter((fire) => fire.cronId === cron.cron_id && fire.scheduledFor < caught.firedAt - 1000)).toHaveLength(1);
  });

  it("skips a missed time with on_missed: skip", async () => {
    const cron = await service.create(undefined, { assistant_id: "graph", schedule: "* * * * * *" }, alice);
    await store.crons.update(cron.cron_id, { next_run_at: Date.now() - 60_000 });
    startScheduler({ onMissed: "skip" });
    expect((await nextFire(cron.cron_id)).outcome).toBe("skipped");
    expect((await nextFire(cron.cron_id)).outcome).toBe("fired");
  });

  it("takes over a fire a stopped process claimed: its run is made once, under the run id the claim chose", async () => {
    const made = await service.create(undefined, { assistant_id: "graph", schedule: "0 0 1 1 *", on_run_completed: "keep" }, alice);
    const undone = await service.create(undefined, { assistant_id: "graph", schedule: "0 0 1 1 *", on_run_completed: "keep" }, alice);
    const at = Date.now() - 1000;
    // The stopped process made the first cron's run, and died before the second's.
    const { run } = await runs.create(undefined, { assistant_id: "graph", on_completion: "keep" }, { access: alice });
    const chosen = crypto.randomUUID();
    const db = new Database(file);
    const claim = db.prepare("UPDATE thinktank_crons SET next_run_at = ?, claim_replica = 'stopped', claim_at = ?, claim_run_id = ? WHERE cron_id = ?");
    claim.run(at, at, run.run_id, made.cron_id);
    claim.run(at, at, chosen, undone.cron_id);
    db.close();
    startScheduler();
    const fired = await Promise.all([nextFire(made.cron_id), nextFire(undone.cron_id)]);
    expect(fired[0]).toMatchObject({ outcome: "taken_over", runId: run.run_id, scheduledFor: at });
    expect(fired[1]).toMatchObject({ outcome: "fired", runId: chosen, scheduledFor: at });
    expect((await store.metadata.getRun(chosen))?.metadata).toMatchObject({ cron_id: undone.cron_id });
    for (const cron of [made, undone]) {
      const after = await service.get(cron.cron_id, alice);
      expect(after.next_run_date).toBe(cron.next_run_date);
    }
    expect(seen.filter((fire) => fire.runId !== undefined)).toHaveLength(2);
  });

  it("pauses a cron whose thread is gone, and one that fails max_consecutive_failures times in a row", async () => {
    const thread = await threads.create({}, alice);
    const orphan = await service.create(thread.thread_id, { assistant_id: "graph", schedule: "* * * * * *" }, alice);
    const failing = await service.create(undefined, { assistant_id: "graph", schedule: "* * * * * *", input: { messages: [{ role: "user", content: "fail" }] } }, alice);
    // Gone as a deletion leaves it (the checkpoints are LangGraph's, untouched here).
    await store.metadata.deleteThread(thread.thread_id);
    startScheduler();
    const paused = await nextFire(orphan.cron_id, "paused");
    expect(paused.reason).toMatchObject({ code: "THREAD_NOT_FOUND" });
    expect(await service.get(orphan.cron_id, alice)).toMatchObject({ enabled: false, next_run_date: null, paused_reason: { code: "THREAD_NOT_FOUND" } });
    await expect
      .poll(async () => (await service.get(failing.cron_id, alice)).paused_reason, { timeout: 15_000, interval: 50 })
      .toMatchObject({ code: "BOOM", message: expect.stringContaining("failed 2 times in a row") });
    expect(await service.get(failing.cron_id, alice)).toMatchObject({ enabled: false, next_run_date: null, consecutive_failures: 2 });
    const resumed = await service.update(failing.cron_id, { enabled: true, input: { messages: [{ role: "user", content: "fine" }] } }, alice);
    expect(resumed).toMatchObject({ enabled: true, paused_reason: null, consecutive_failures: 0 });
    expect((await nextFire(failing.cron_id, "fired")).runId).toBeDefined();
  });
});
