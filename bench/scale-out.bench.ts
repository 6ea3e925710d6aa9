// Scale-out (issue 19): real agent server processes (the scripted model, one reply per run) on one
// real Postgres. Runs per second of POST /threads/:id/runs/wait at a fixed client concurrency with
// one replica and with two (requests spread round robin, as a load balancer does), beside one
// SQLite process, in interleaved rounds of the same work; and the first streamed event of a run
// created on replica B, read from a stream opened on B (where it executes) or on A, with events over
// Postgres (LISTEN/NOTIFY) or Redis. Needs THINKTANK_TEST_POSTGRES_URL (.ci/start-postgres prints one;
// its role has CREATEDB: each group gets a fresh database) and, for Redis, redis-server.
import http from "node:http";
import os from "node:os";
import { missingReason, startRedis } from "@thinktank/testing";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";
import { quantile } from "./load-driver.js";
import { firstEvent, startGroup, throughputRound, type AgentGroup, type ThroughputRound } from "./scale-out-driver.js";

const work = { clients: 16, threadsPerClient: 4, runsPerClient: 32 };
const rounds = 7;
const latencySamples = 100;
const latencyWarmup = 10;

const load1 = () => round(os.loadavg()[0] ?? 0, 2);

interface Contender {
  readonly name: string;
  readonly group: AgentGroup;
  readonly results: ThroughputRound[];
}

/** Rounds of the same work on each contender in turn (interleaved, so load from elsewhere falls on all alike), after one warm-up round each. */
async function measureThroughput(context: BenchContext, contenders: Contender[]): Promise<void> {
  for (const contender of contenders) await throughputRound(contender.group, work);
  for (let index = 0; index < rounds; index++) {
    for (const contender of contenders) {
      const result = await throughputRound(contender.group, work);
      contender.results.push(result);
      context.log(`round ${index + 1}, ${contender.name}: ${round(result.perSecond, 1)} runs/s, ${result.errors} errors, load ${load1()}`);
    }
  }
}

function throughputRow(contender: Contender, baseline: Contender | undefined, label: string): Measurement {
  const perSecond = summarize(contender.results.map((result) => result.perSecond));
  const runs = contender.results.reduce((sum, result) => sum + result.runs, 0);
  const errors = contender.results.reduce((sum, result) => sum + result.errors, 0);
  const latencies = contender.results.flatMap((result) => result.latencies);
  const agentCpu = contender.results.reduce((sum, result) => sum + result.agentCpuMs, 0) / runs;
  const postgresCpu = contender.results.reduce((sum, result) => sum + result.postgresCpuMs, 0) / runs;
  const base = baseline ? summarize(baseline.results.map((result) => result.perSecond)).median : undefined;
  return {
    name: `POST /threads/:id/runs/wait, ${work.clients} clients, ${work.clients * work.threadsPerClient} threads, ${label}`,
    value: round(perSecond.median, 1),
    unit: "runs/s",
    ...(baseline && base ? { baseline: { name: baseline.name, value: round(base, 1), unit: "runs/s" } } : {}),
    target: "0 errors",
    pass: errors === 0,
    stats: {
      ...(base ? { ratio: round(perSecond.median / base, 2) } : {}),
      min: round(perSecond.min, 1),
      max: round(perSecond.max, 1),
      rounds: contender.results.length,
      runs,
      errors,
      p50_ms: round(quantile(latencies, 0.5), 1),
      p95_ms: round(quantile(latencies, 0.95), 1),
      agent_cpu_ms_per_run: round(agentCpu, 2),
      ...(postgresCpu > 0 ? { postgres_cpu_ms_per_run: round(postgresCpu, 2) } : {}),
    },
  };
}

interface Pair {
  /** How its events travel between replicas. */
  readonly backend: string;
  readonly group: AgentGroup;
  readonly same: number[];
  readonly other: number[];
  readonly sameFromOpen: number[];
  readonly otherFromOpen: number[];
}

/**
 * The first streamed event of runs created on B, a stream opened on B and then one on A, on each
 * pair in turn (interleaved, so load from elsewhere falls on all alike), `latencySamples` each after
 * a warm-up.
 */
async function measureFirstEvents(context: BenchContext, pairs: Pair[]): Promise<Measurement[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    for (let index = 0; index < latencyWarmup + latencySamples; index++) {
      for (const pair of pairs) {
        const [a, b] = pair.group.urls as [string, string];
        const onB = await firstEvent(agent, b, b, `sample ${index}`);
        const onA = await firstEvent(agent, b, a, `sample ${index}`);
        if (index < latencyWarmup) continue;
        pair.same.push(onB.fromCreate);
        pair.sameFromOpen.push(onB.fromOpen);
        pair.other.push(onA.fromCreate);
        pair.otherFromOpen.push(onA.fromOpen);
      }
    }
  } finally {
    agent.destroy();
  }
  return pairs.map((pair) => firstEventRow(context, pair));
}

function firstEventRow(context: BenchContext, pair: Pair): Measurement {
  const [other, same] = [summarize(pair.other), summarize(pair.same)];
  context.log(`${pair.backend}: first event on the other replica p50 ${round(other.median, 2)} ms (p95 ${round(other.p95, 2)}), same replica p50 ${round(same.median, 2)} ms (p95 ${round(same.p95, 2)})`);
  return {
    name: `${pair.backend}: run created on B (POST /threads/:id/runs) → first event after metadata on GET …/runs/:run_id/stream opened on A, the other replica`,
    value: round(other.median, 2),
    unit: "ms",
    baseline: { name: "stream opened on B, which executes it", value: round(same.median, 2), unit: "ms" },
    stats: {
      p95: round(other.p95, 2),
      same_p95: round(same.p95, 2),
      from_open_p50: round(quantile(pair.otherFromOpen, 0.5), 2),
      same_from_open_p50: round(quantile(pair.sameFromOpen, 0.5), 2),
      samples: other.samples,
      load1: load1(),
    },
  };
}

const pairOf = (backend: string, group: AgentGroup): Pair => ({ backend, group, same: [], other: [], sameFromOpen: [], otherFromOpen: [] });

async function withGroups<T>(starts: (() => Promise<AgentGroup>)[], work: (groups: AgentGroup[]) => Promise<T>): Promise<T> {
  const groups: AgentGroup[] = [];
  try {
    for (const start of starts) groups.push(await start());
    return await work(groups);
  } finally {
    for (const group of groups) await group.stop();
  }
}

const benchmark: Benchmark = {
  title: "Scale-out: runs/s with one and two agent servers on one Postgres, first streamed event on the other replica",
  issue: 19,
  async run(context): Promise<Measurement[]> {
    context.log(`load average at start: ${os.loadavg().map((value) => value.toFixed(2)).join(", ")} on ${os.cpus().length} cores`);
    if (!process.env.THINKTANK_TEST_POSTGRES_URL) {
      context.log("THINKTANK_TEST_POSTGRES_URL is not set (.ci/start-postgres prints one); skipped");
      return [];
    }
    const redisMissing = missingReason("redis");
    if (redisMissing) context.log(`Redis: ${redisMissing}; the Redis stream backend is skipped`);
    const redis = redisMissing ? undefined : await startRedis();
    try {
      const starts = [() => startGroup({ count: 1, threads: "sqlite" }), () => startGroup({ count: 1, threads: "postgres" }), () => startGroup({ count: 2, threads: "postgres" })];
      if (redis) starts.push(() => startGroup({ count: 2, threads: "postgres", redisUrl: redis.url }));
      return await withGroups(starts, async ([sqlite, one, two, redisPair]) => {
        const contenders: Contender[] = [
          { name: "SQLite, 1 process", group: sqlite as AgentGroup, results: [] },
          { name: "Postgres, 1 replica", group: one as AgentGroup, results: [] },
          { name: "Postgres, 2 replicas", group: two as AgentGroup, results: [] },
        ];
        await measureThroughput(context, contenders);
        const [onSqlite, onOne, onTwo] = contenders as [Contender, Contender, Contender];
        const pairs = [pairOf("events over Postgres (LISTEN/NOTIFY)", two as AgentGroup)];
        if (redisPair) pairs.push(pairOf("events over Redis (streams + pub/sub)", redisPair));
        const results = [
          throughputRow(onSqlite, undefined, "SQLite, 1 process"),
          throughputRow(onOne, onSqlite, "Postgres, 1 replica"),
          throughputRow(onTwo, onOne, "Postgres, 2 replicas (requests round robin)"),
          ...(await measureFirstEvents(context, pairs)),
        ];
        context.log(`load average at end: ${os.loadavg().map((value) => value.toFixed(2)).join(", ")}`);
        return results;
      });
    } finally {
      await redis?.stop();
    }
  },
};

export default benchmark;
