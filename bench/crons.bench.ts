// Cron firing delay with 1,000 crons scheduled: from a cron's time to its run created (runs.create
// returned, the run recorded and admitted), p50 and p99. The scheduler, the cron store and the run
// manager are the agent server's (packages/runs) over a real SQLite threads database in this
// process; each run's executor answers at once (no graph, no model: what is measured is the
// scheduler and the run's creation, not an agent's work). Two loads:
// - spread: 1,000 crons each every 10 s at its own second (100 fall due each second), 20 s;
// - burst: 1,000 crons all at the same second every 10 s, three times.
// Baselines in the same run, before the crons: a plain setTimeout's lateness for instants 10 ms
// apart (the event loop's timer accuracy here), and the scheduler with one cron firing every second.
import path from "node:path";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { serverAccess, CronScheduler, CronService, KeptRunEvents, openSqliteStore, RunManager, ThreadService, type AgentStore, type CronFire, type RunExecutor } from "@thinktank/runs";
import { makeTempDir } from "@thinktank/testing";
import { round, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const cronCount = 1000;

interface Setup {
  readonly store: AgentStore;
  readonly runs: RunManager;
  readonly threads: ThreadService;
  readonly service: CronService;
  readonly scheduler: CronScheduler;
  /** Resolves once `count` fires arrived (after `from`, epoch ms), with their delays in ms. */
  collect(count: number, from: number): Promise<number[]>;
  close(): Promise<void>;
}

async function setUp(file: string): Promise<Setup> {
  const store = await openSqliteStore(file);
  const stateGraph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
  const clock = () => new Date();
  const threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "lead_agent" } });
  const execute: RunExecutor = async () => ({ status: "success" });
  const resolveAssistant = async (id: string) => ({ assistant_id: id, version: 1 });
  const runs = new RunManager({ store, threads, clock, execute, events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 20_000, maxBytes: 256 * 1024 * 1024 }), resolveAssistant });
  let waiter: { count: number; from: number; delays: number[]; resolve: (delays: number[]) => void } | undefined;
  const onFire = (fire: CronFire) => {
    if (!waiter || fire.outcome !== "fired" || fire.scheduledFor < waiter.from) return;
    waiter.delays.push(fire.firedAt - fire.scheduledFor);
    if (waiter.delays.length >= waiter.count) {
      const done = waiter;
      waiter = undefined;
      done.resolve(done.delays);
    }
  };
  const scheduler = new CronScheduler({
    store: store.crons,
    runs,
    runExists: async (runId) => (await store.metadata.getRun(runId)) !== undefined,
    ownerAccess: async () => serverAccess,
    clock,
    replicaId: "bench",
    staleAfterMs: 0,
    maxConsecutiveFailures: 5,
    onMissed: "catch_up",
    missedAfterMs: 30_000,
    onFire,
  });
  const service = new CronService({ store: store.crons, threads, resolveAssistant, clock, minIntervalSeconds: 1, maxPerOwner: 100_000, changed: () => scheduler.wake() });
  return {
    store,
    runs,
    threads,
    service,
    scheduler,
    collect: (count, from) => new Promise((resolve) => (waiter = { count, from, delays: [], resolve })),
    close: async () => {
      await scheduler.close();
      await runs.shutdown();
      await store.close();
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
async function createCrons(setup: Setup, count: number, schedule: (index: number) => string): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const threadId = (await setup.threads.create({}, serverAccess)).thread_id;
    ids.push((await setup.service.create(threadId, { assistant_id: "lead_agent", schedule: schedule(index), input: { messages: [{ role: "user", content: "tick" }] } }, serverAccess)).cron_id);
  }
  return ids;
}

async function measure(context: BenchContext): Promise<Measurement[]> {
  const temp = makeTempDir("tt-bench-crons-");
  // The scheduler's timer does not hold the process open (a server's listening socket does): this does, meanwhile.
  const alive = setInterval(() => undefined, 1000);
  try {
    context.log("baseline: setTimeout lateness, 200 instants 10 ms apart");
    const timer = percentiles(await timerLateness(200));

    context.log("baseline: the scheduler with one cron every second, 20 fires");
    let setup = await setUp(path.join(temp.dir, "one.sqlite"));
    await setup.scheduler.start();
    await createCrons(setup, 1, () => "* * * * * *");
    const one = percentiles(await setup.collect(20, Date.now() + 1000));
    await setup.close();

    context.log(`spread: ${cronCount} crons every 10 s, 100 due each second, 2,000 fires`);
    setup = await setUp(path.join(temp.dir, "spread.sqlite"));
    await createCrons(setup, cronCount, (index) => `${index % 10}-59/10 * * * * *`);
    await setup.scheduler.start();
    const spreadCpu = process.cpuUsage();
    const spread = percentiles(await setup.collect(2 * cronCount, Math.ceil(Date.now() / 1000) * 1000 + 1000));
    const spreadCpuMs = (process.cpuUsage(spreadCpu).user + process.cpuUsage(spreadCpu).system) / 1000;
    await setup.close();

    context.log(`burst: ${cronCount} crons due at the same second, every 10 s, three times`);
    setup = await setUp(path.join(temp.dir, "burst.sqlite"));
    await createCrons(setup, cronCount, () => "*/10 * * * * *");
    await setup.scheduler.start();
    const burst = percentiles(await setup.collect(3 * cronCount, Math.ceil(Date.now() / 10_000) * 10_000));
    await setup.close();

    const baseline = { name: "setTimeout lateness p50 (p99)", value: round(timer.p50, 2), unit: `ms (${round(timer.p99, 2)} ms)` };
    return [
      { name: "idle scheduler, 1 cron every second: delay p50", value: round(one.p50, 2), unit: "ms", baseline, stats: { p99: round(one.p99, 2), max: round(one.max, 2), samples: one.samples } },
      { name: `${cronCount} crons, 100 due each second: delay p50`, value: round(spread.p50, 2), unit: "ms", baseline, stats: { p95: round(spread.p95, 2), p99: round(spread.p99, 2), max: round(spread.max, 2), samples: spread.samples, "CPU ms per fire": round(spreadCpuMs / spread.samples, 3) } },
      { name: `${cronCount} crons due at the same second: delay p50`, value: round(burst.p50, 2), unit: "ms", baseline, stats: { p95: round(burst.p95, 2), p99: round(burst.p99, 2), max: round(burst.max, 2), samples: burst.samples } },
    ];
  } finally {
    clearInterval(alive);
    temp.cleanup();
  }
}

const benchmark: Benchmark = { title: "Crons: firing delay with 1,000 crons scheduled", issue: 28, run: measure };
export default benchmark;
