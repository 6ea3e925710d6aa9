// Cron firing delay with 1,000 crons scheduled: from a cron's time to its run created (runs.create
// returned, the run recorded and admitted), p50 and p99. The scheduler, the cron store and the run
// manager are the agent server's (packages/runs), in this process, over a real SQLite threads
// database, then (with THINKTANK_TEST_POSTGRES_URL) over Postgres as one and as two replicas (two
// stores, run queues and schedulers sharing one database, as two agent servers do). Each run's
// executor answers at once (no graph, no model): what is measured is the scheduler and the run's
// creation, not an agent's work. Two loads:
// - spread: 1,000 crons each every 10 s at its own second (100 fall due each second), 2,000 fires;
// - burst: 1,000 crons all at the same second every 10 s, three times.
// Baselines in the same run, before the crons: a plain setTimeout's lateness for instants 10 ms
// apart (the event loop's timer accuracy here), and the scheduler with one cron firing every second.
// THINKTANK_BENCH_CRONS=postgres runs only the Postgres loads.
import crypto from "node:crypto";
import path from "node:path";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import pg from "pg";
import { serverAccess, CronScheduler, CronService, KeptRunEvents, openPostgresStore, openSqliteStore, RunManager, ThreadService, type AgentStore, type CronFire, type RunExecutor } from "@thinktank/runs";
import { makeTempDir } from "@thinktank/testing";
import { round, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const cronCount = 1000;

/**
 * Fires heard from every replica of a load, and a wait for `count` fires with runs (on time, or
 * caught up when more than missed_after_seconds late) at or after `from` (epoch ms): their delays in
 * ms, how many were catch-ups, and whether the wait gave up (after `timeoutMs`) before `count`.
 */
class Collector {
  #waiter: { count: number; from: number; delays: number[]; caughtUp: number; resolve: (result: Collected) => void } | undefined;
  readonly onFire = (fire: CronFire): void => {
    const waiter = this.#waiter;
    if (!waiter || (fire.outcome !== "fired" && fire.outcome !== "caught_up") || fire.scheduledFor < waiter.from) return;
    waiter.delays.push(fire.firedAt - fire.scheduledFor);
    if (fire.outcome === "caught_up") waiter.caughtUp++;
    if (waiter.delays.length >= waiter.count) this.#end(false);
  };
  collect(count: number, from: number, timeoutMs = Number(process.env.THINKTANK_BENCH_CRONS_TIMEOUT ?? 180_000)): Promise<Collected> {
    return new Promise((resolve) => {
      this.#waiter = { count, from, delays: [], caughtUp: 0, resolve };
      setTimeout(() => this.#end(true), timeoutMs).unref();
    });
  }
  #end(gaveUp: boolean): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    this.#waiter = undefined;
    waiter.resolve({ delays: waiter.delays, caughtUp: waiter.caughtUp, gaveUp });
  }
}

interface Collected {
  readonly delays: number[];
  readonly caughtUp: number;
  readonly gaveUp: boolean;
}

/** One agent server's part: its store, run manager (the shared queue on Postgres), cron service and scheduler. */
interface Replica {
  readonly store: AgentStore;
  readonly runs: RunManager;
  readonly threads: ThreadService;
  readonly service: CronService;
  readonly scheduler: CronScheduler;
  close(): Promise<void>;
}

async function replicaOver(store: AgentStore, replicaId: string, collector: Collector): Promise<Replica> {
  const stateGraph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
  const clock = () => new Date();
  const threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "lead_agent" } });
  const execute: RunExecutor = async () => ({ status: "success" });
  const resolveAssistant = async (id: string) => ({ assistant_id: id, version: 1 });
  const queue = await store.openRunQueue?.({ heartbeatSeconds: 5, staleAfterSeconds: 30, clock });
  const runs = new RunManager({ store, threads, clock, execute, queue, events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 20_000, maxBytes: 256 * 1024 * 1024 }), resolveAssistant });
  const scheduler = new CronScheduler({
    store: store.crons,
    runs,
    runExists: async (runId) => (await store.metadata.getRun(runId)) !== undefined,
    ownerAccess: async () => serverAccess,
    clock,
    replicaId,
    staleAfterMs: store.listenForCrons ? 30_000 : 0,
    maxConsecutiveFailures: 5,
    onMissed: "catch_up",
    missedAfterMs: 30_000,
    listen: store.listenForCrons,
    onFire: collector.onFire,
  });
  const service = new CronService({ store: store.crons, threads, resolveAssistant, clock, minIntervalSeconds: 1, maxPerOwner: 100_000, changed: () => scheduler.wake() });
  return {
    store,
    runs,
    threads,
    service,
    scheduler,
    close: async () => {
      try {
        await scheduler.close();
        await runs.shutdown();
      } finally {
        await store.close();
      }
    },
  };
}

/** p50 and p99 of the delays (ms). */
function percentiles(values: readonly number[]): { p50: number; p95: number; p99: number; max: number; samples: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) as number, samples: sorted.length };
}

/** A plain setTimeout's lateness (ms) for `samples` instants 10 ms apart: the event loop's own accuracy. */
async function timerLateness(samples: number): Promise<number[]> {
  const start = Math.ceil(Date.now() / 1000) * 1000 + 1000;
  return Promise.all(
    Array.from({ length: samples }, (_, index) => {
      const at = start + index * 10;
      return new Promise<number>((resolve) => setTimeout(() => resolve(Date.now() - at), at - Date.now()));
    }),
  );
}

/** Creates `count` crons, each on a thread of its own (so fires never wait for each other's runs), the schedule by index. */
async function createCrons(setup: Replica, count: number, schedule: (index: number) => string): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const threadId = (await setup.threads.create({}, serverAccess)).thread_id;
    ids.push((await setup.service.create(threadId, { assistant_id: "lead_agent", schedule: schedule(index), input: { messages: [{ role: "user", content: "tick" }] } }, serverAccess)).cron_id);
  }
  return ids;
}

/** Runs a load: `replicas` over their stores, `count` crons made on the first, fires collected from all. */
async function load(stores: readonly AgentStore[], schedule: (index: number) => string, fires: number, from: () => number, count = cronCount): Promise<Collected & { cpuMs: number }> {
  const collector = new Collector();
  const replicas = await Promise.all(stores.map((store, index) => replicaOver(store, `bench-${index}`, collector)));
  try {
    await createCrons(replicas[0] as Replica, count, schedule);
    const cpu = process.cpuUsage();
    const waiting = collector.collect(fires, from());
    for (const replica of replicas) await replica.scheduler.start();
    const collected = await waiting;
    const used = process.cpuUsage(cpu);
    return { ...collected, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    for (const replica of replicas) await replica.close();
  }
}

/** A database of its own on THINKTANK_TEST_POSTGRES_URL's server, dropped after. */
async function withPostgres<T>(base: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `tt_bench_crons_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(base);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const nextSecond = () => Math.ceil(Date.now() / 1000) * 1000 + 1000;
const nextTen = () => Math.ceil(Date.now() / 10_000) * 10_000;
const spreadSchedule = (index: number) => `${index % 10}-59/10 * * * * *`;

async function measure(context: BenchContext): Promise<Measurement[]> {
  const temp = makeTempDir("tt-bench-crons-");
  // The scheduler's timer does not hold the process open (a server's listening socket does): this does, meanwhile.
  const alive = setInterval(() => undefined, 1000);
  const sqlite = (name: string) => openSqliteStore(path.join(temp.dir, `${name}.sqlite`));
  try {
    context.log("baseline: setTimeout lateness, 200 instants 10 ms apart");
    const timer = percentiles(await timerLateness(200));
    const baseline = { name: "setTimeout lateness p50 (p99)", value: round(timer.p50, 2), unit: `ms (${round(timer.p99, 2)} ms)` };
    const row = (name: string, result: Collected & { cpuMs: number }): Measurement => {
      const stats = percentiles(result.delays);
      const extra = { ...(result.caughtUp > 0 ? { "caught up (> 30 s late)": result.caughtUp } : {}), ...(result.gaveUp ? { "gave up after": "180 s" } : {}) };
      return { name, value: round(stats.p50, 2), unit: "ms", baseline, stats: { p95: round(stats.p95, 2), p99: round(stats.p99, 2), max: round(stats.max, 2), samples: stats.samples, "CPU ms per fire": round(result.cpuMs / stats.samples, 3), ...extra } };
    };

    const results: Measurement[] = [];
    const only = process.env.THINKTANK_BENCH_CRONS;
    if (only !== "postgres") {
      context.log("baseline: the scheduler with one cron every second, 20 fires (SQLite)");
      const one = await load([await sqlite("one")], () => "* * * * * *", 20, nextSecond, 1);
      context.log(`spread: ${cronCount} crons every 10 s, 100 due each second, 2,000 fires (SQLite)`);
      const spread = await load([await sqlite("spread")], spreadSchedule, 2 * cronCount, nextSecond);
      context.log(`burst: ${cronCount} crons due at the same second, every 10 s, three times (SQLite)`);
      const burst = await load([await sqlite("burst")], () => "*/10 * * * * *", 3 * cronCount, nextTen);
      results.push(
        row("SQLite, idle scheduler, 1 cron every second: delay p50", one),
        row(`SQLite, ${cronCount} crons, 100 due each second: delay p50`, spread),
        row(`SQLite, ${cronCount} crons due at the same second: delay p50`, burst),
      );
    }

    const base = process.env.THINKTANK_TEST_POSTGRES_URL;
    if (!base) {
      context.log("Postgres: THINKTANK_TEST_POSTGRES_URL is not set (.ci/start-postgres prints one); skipped");
      return results;
    }
    // Postgres commits (the run's admission and end, the cron's move) wait on the WAL: on this
    // machine 100 due each second is past what it writes, so the Postgres load is 1,000 crons each
    // once a minute at its own second (about 17 due each second), 1,000 fires.
    const minuteSchedule = (index: number) => `${index % 60} * * * * *`;
    for (const count of [1, 2]) {
      context.log(`Postgres, ${count} replica(s): ${cronCount} crons once a minute each, 1,000 fires`);
      const spreadPg = await withPostgres(base, async (url) => load(await Promise.all(Array.from({ length: count }, () => openPostgresStore(url))), minuteSchedule, cronCount, nextSecond));
      results.push(row(`Postgres, ${count} replica${count > 1 ? "s" : ""} in this process, ${cronCount} crons, about 17 due each second: delay p50`, spreadPg));
    }
    return results;
  } finally {
    clearInterval(alive);
    temp.cleanup();
  }
}

const benchmark: Benchmark = { title: "Crons: firing delay with 1,000 crons scheduled", issue: 28, run: measure };
export default benchmark;
