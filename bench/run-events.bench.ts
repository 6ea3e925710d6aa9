// Run events across replicas (issue 19): how long the first streamed event of a run takes to reach a
// follower on another replica (Postgres LISTEN/NOTIFY, Redis streams + pub/sub) beside a follower on
// the replica that executes it (memory). Two stores in this process are the two replicas: separate
// connections, separate memory, one database or Redis on this machine.
import crypto from "node:crypto";
import os from "node:os";
import { openPostgresRunEvents, openRedisRunEvents, type ReplicatedRunEvents } from "@thinktank/runs";
import { missingReason, startRedis } from "@thinktank/testing";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement, Summary } from "./harness.js";

const samples = 200;
const warmup = 20;
const hour = 60 * 60 * 1000;

interface Pair {
  readonly executing: ReplicatedRunEvents;
  readonly other: ReplicatedRunEvents;
}

/** Milliseconds from the event's push on the executing replica to a follower on `follower` receiving it (follower caught up before). */
async function firstEvent(pair: Pair, follower: ReplicatedRunEvents): Promise<number> {
  const runId = crypto.randomUUID();
  const kept = pair.executing.open(runId);
  kept.log.push("metadata", JSON.stringify({ run_id: runId, attempt: 1 }));
  await kept.log.flushed?.();
  const found = await follower.lookup(runId);
  if (!found) throw new Error(`run ${runId} not found`);
  const events = found.log.follow()[Symbol.asyncIterator]();
  await events.next();
  const started = process.hrtime.bigint();
  kept.log.push("values", JSON.stringify({ messages: [{ type: "ai", content: "hello" }] }));
  const first = await events.next();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (first.done || first.value.id !== "1") throw new Error(`expected event 1, got ${JSON.stringify(first.value)}`);
  pair.executing.finish(runId);
  while (!(await events.next()).done);
  return ms;
}

/** Milliseconds from `lookup` of a running run to its first event on `follower` (a client joining it). */
async function join(pair: Pair, follower: ReplicatedRunEvents): Promise<number> {
  const runId = crypto.randomUUID();
  const kept = pair.executing.open(runId);
  kept.log.push("metadata", JSON.stringify({ run_id: runId, attempt: 1 }));
  await kept.log.flushed?.();
  const started = process.hrtime.bigint();
  const found = await follower.lookup(runId);
  const events = found!.log.follow()[Symbol.asyncIterator]();
  await events.next();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  pair.executing.finish(runId);
  while (!(await events.next()).done);
  return ms;
}

async function measure(pair: Pair, probe: (pair: Pair, follower: ReplicatedRunEvents) => Promise<number>, follower: ReplicatedRunEvents): Promise<Summary> {
  for (let index = 0; index < warmup; index++) await probe(pair, follower);
  const values: number[] = [];
  for (let index = 0; index < samples; index++) values.push(await probe(pair, follower));
  return summarize(values);
}

async function measureBackend(name: string, pair: Pair): Promise<Measurement[]> {
  const results: Measurement[] = [];
  for (const [what, probe] of [
    ["pushed → first event at a follower", firstEvent],
    ["join a running run: lookup → first event", join],
  ] as const) {
    // Interleaved per round would be fairer on a loaded machine; these are short enough to run back to back.
    const same = await measure(pair, probe, pair.executing);
    const other = await measure(pair, probe, pair.other);
    results.push({
      name: `${name}: ${what}, on the other replica`,
      value: round(other.median, 3),
      unit: "ms",
      baseline: { name: "same replica (memory)", value: round(same.median, 4), unit: "ms" },
      stats: { p95: round(other.p95, 3), min: round(other.min, 3), samples: other.samples, same_p95: round(same.p95, 4), load1: round(os.loadavg()[0] ?? 0, 2) },
    });
  }
  return results;
}

async function withPair(open: () => Promise<ReplicatedRunEvents>, work: (pair: Pair) => Promise<Measurement[]>): Promise<Measurement[]> {
  const executing = await open();
  const other = await open();
  try {
    return await work({ executing, other });
  } finally {
    await Promise.all([executing.close(), other.close()]);
  }
}

const benchmark: Benchmark = {
  title: "Run events across replicas: first streamed event on the other replica",
  issue: 19,
  async run({ log }) {
    const results: Measurement[] = [];
    log(`load average (1 min) at start: ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} cores`);
    const postgresUrl = process.env.THINKTANK_TEST_POSTGRES_URL;
    if (postgresUrl) {
      results.push(...(await withPair(() => openPostgresRunEvents(postgresUrl, { retentionMs: hour }), (pair) => measureBackend("Postgres (LISTEN/NOTIFY)", pair))));
    } else log("Postgres: THINKTANK_TEST_POSTGRES_URL is not set (.ci/start-postgres prints one); skipped");
    const redisMissing = missingReason("redis");
    if (!redisMissing) {
      const server = await startRedis();
      try {
        results.push(...(await withPair(() => openRedisRunEvents(server.url, { retentionMs: hour }), (pair) => measureBackend("Redis (streams + pub/sub)", pair))));
      } finally {
        await server.stop();
      }
    } else log(`Redis: ${redisMissing}; skipped`);
    return results;
  },
};

export default benchmark;
