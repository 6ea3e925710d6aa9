// The agent server under load (issue 20): a real agent process (scripted model, a run with one tool
// call) driven over loopback by 1-64 concurrent clients. Throughput and latency of runs/wait,
// complete streams at 32 concurrent, /healthz while 64 runs go on, RSS after 20,000 runs and after
// the load, and where the CPU time goes (a --cpu-prof profile at 32 concurrent). Every phase is
// bounded in time; the section takes about 5 minutes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cpuProfileShares } from "./cpu-profile-summary.js";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";
import { drive, quantile, sampleHealthz, startLoadAgent, streamOnce, type LoadAgent } from "./load-driver.js";

const levels = [1, 8, 32, 64] as const;
const levelMs = 6_000;
const rssRuns = 20_000;
const rssBoundMs = 180_000;
const idleBoundMs = 75_000;

async function measureLevels(context: BenchContext, agent: LoadAgent): Promise<Measurement[]> {
  const results: Measurement[] = [];
  let atOne = 0;
  for (const concurrency of levels) {
    const cpu = agent.cpuMs();
    const health = concurrency === 64 ? sampleHealthz(agent.url) : undefined;
    const load = await drive({ url: agent.url, concurrency, durationMs: levelMs, mode: "wait" });
    const healthz = await health?.stop();
    const latency = summarize(load.latencies);
    const cpuPerRun = (agent.cpuMs() - cpu) / load.runs;
    if (concurrency === 1) atOne = load.perSecond;
    context.log(`runs/wait at ${concurrency}: ${round(load.perSecond, 1)} runs/s, p50 ${round(latency.median, 1)} ms, p99 ${round(quantile(load.latencies, 0.99), 1)} ms, ${load.errors} errors, CPU ${round(cpuPerRun, 2)} ms/run`);
    results.push({
      name: `POST /runs/wait (one tool call), ${concurrency} concurrent`,
      value: round(load.perSecond, 1),
      unit: "runs/s",
      stats: { p50_ms: round(latency.median, 1), p99_ms: round(quantile(load.latencies, 0.99), 1), runs: load.runs, errors: load.errors, cpu_ms_per_run: round(cpuPerRun, 2) },
      ...(concurrency > 1 ? { baseline: { name: "1 concurrent", value: round(atOne, 1), unit: "runs/s" } } : {}),
      target: "0 errors",
      pass: load.errors === 0,
    });
    if (healthz) results.push(await healthzRow(agent, healthz));
  }
  return results;
}

/** /healthz during the 64-concurrent level, beside /healthz on the idle server (measured right after). */
async function healthzRow(agent: LoadAgent, underLoad: number[]): Promise<Measurement> {
  const idleSampler = sampleHealthz(agent.url, 5);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const idle = await idleSampler.stop();
  const p99 = quantile(underLoad, 0.99);
  return {
    name: "GET /healthz p99 during 64 concurrent runs",
    value: round(p99, 1),
    unit: "ms",
    stats: { p50: round(quantile(underLoad, 0.5), 1), max: round(Math.max(...underLoad), 1), samples: underLoad.length },
    baseline: { name: "p99 on the idle server", value: round(quantile(idle, 0.99), 2), unit: "ms" },
    target: "p99 <= 50 ms",
    pass: p99 <= 50,
  };
}

async function measureStreams(context: BenchContext, agent: LoadAgent): Promise<Measurement> {
  const expected = await streamOnce(agent.url);
  const alone = await drive({ url: agent.url, concurrency: 1, durationMs: 3_000, mode: "stream", expected });
  const loaded = await drive({ url: agent.url, concurrency: 32, durationMs: 10_000, mode: "stream", expected });
  const share = (100 * loaded.complete) / loaded.runs;
  context.log(`streams at 32: ${loaded.complete}/${loaded.runs} complete (at 1: ${alone.complete}/${alone.runs})`);
  return {
    name: "POST /runs/stream (values + messages-tuple, one tool call), 32 concurrent: streams with every event, ending with the final values",
    value: round(share, 2),
    unit: "%",
    stats: { streams: loaded.runs, incomplete: loaded.runs - loaded.complete, errors: loaded.errors, runs_per_s: round(loaded.perSecond, 1) },
    baseline: { name: "1 concurrent", value: round((100 * alone.complete) / alone.runs, 2), unit: "%" },
    target: "100%",
    pass: loaded.complete === loaded.runs && loaded.errors === 0,
  };
}

async function measureMemory(context: BenchContext, agent: LoadAgent, atStart: number): Promise<Measurement[]> {
  let peak = agent.rssMiB();
  const sampler = setInterval(() => (peak = Math.max(peak, agent.rssMiB())), 500);
  const started = performance.now();
  const load = await drive({ url: agent.url, concurrency: 32, durationMs: rssBoundMs, maxRuns: rssRuns, mode: "wait" });
  clearInterval(sampler);
  const afterLoad = agent.rssMiB();
  const seconds = (performance.now() - started) / 1000;
  context.log(`${load.runs} runs in ${round(seconds, 1)} s: RSS ${round(afterLoad)} MiB (peak ${round(peak)}, after start ${round(atStart)})`);
  // After the load: wait (bounded) for V8's memory reducer to give memory back.
  const idleStart = performance.now();
  let idle = afterLoad;
  const fallen = (rss: number) => rss <= atStart + (peak - atStart) / 2;
  while (performance.now() - idleStart < idleBoundMs && !fallen(idle)) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    idle = agent.rssMiB();
  }
  const idleSeconds = (performance.now() - idleStart) / 1000;
  context.log(`RSS ${round(idle)} MiB after ${round(idleSeconds, 0)} s idle`);
  return [
    {
      name: `agent RSS after ${load.runs.toLocaleString("en-US")} runs (32 concurrent, ${round(load.runs / seconds, 0)} runs/s)`,
      value: round(afterLoad, 0),
      unit: "MiB",
      stats: { peak: round(peak, 0), seconds: round(seconds, 1), errors: load.errors },
      baseline: { name: "RSS after start", value: round(atStart, 0), unit: "MiB" },
      target: "<= 600 MiB",
      pass: peak <= 600 && load.runs >= rssRuns,
    },
    {
      name: "agent RSS after the load, idle",
      value: round(idle, 0),
      unit: "MiB",
      stats: { idle_seconds: round(idleSeconds, 0) },
      baseline: { name: "peak RSS during the load", value: round(peak, 0), unit: "MiB" },
      target: `halfway back to the RSS after start within ${idleBoundMs / 1000} s`,
      pass: fallen(idle),
    },
  ];
}

/** A second agent process with --cpu-prof, 32 concurrent streams for 12 s: where its CPU time went. */
async function measureProfile(context: BenchContext): Promise<Measurement> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-prof-"));
  try {
    const agent = await startLoadAgent({ root: context.root, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
    let load;
    try {
      load = await drive({ url: agent.url, concurrency: 32, durationMs: 12_000, mode: "stream", expected: await streamOnce(agent.url) });
    } finally {
      await agent.stop();
    }
    // One profile per thread; the main thread's is the largest.
    const [file] = fs.readdirSync(dir).map((name) => path.join(dir, name)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
    if (!file) throw new Error("no CPU profile was written");
    const { busyMs, shares } = cpuProfileShares(file);
    context.log(`CPU profile: ${shares.slice(0, 8).map(([name, share]) => `${name} ${round(share, 1)}%`).join(", ")}`);
    return {
      name: "where the CPU time goes: agent process, 32 concurrent streams (share of busy profile samples, start-up included)",
      value: round(load.perSecond, 1),
      unit: "runs/s",
      stats: { busy_s: round(busyMs / 1000, 1), ...Object.fromEntries(shares.slice(0, 9).map(([name, share]) => [name, `${round(share, 1)}%`])) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = {
  title: "Agent server under load: runs/s, complete streams, /healthz, RSS",
  issue: 20,
  async run(context): Promise<Measurement[]> {
    const agent = await startLoadAgent({ root: context.root });
    const afterStart = agent.rssMiB();
    const results: Measurement[] = [];
    try {
      await drive({ url: agent.url, concurrency: 8, durationMs: 2_000, mode: "wait" });
      results.push(...(await measureLevels(context, agent)));
      results.push(await measureStreams(context, agent));
      results.push(...(await measureMemory(context, agent, afterStart)));
    } finally {
      await agent.stop();
    }
    results.push(await measureProfile(context));
    return results;
  },
};

export default benchmark;
