// The parts behind bench/scale-out.bench.ts: groups of real agent server processes (scripted model,
// a one-step reply) on SQLite or on one Postgres database, runs/wait driven over them round robin,
// and a run's first streamed event read on the replica that executes it or on the other one.
import fs from "node:fs";
import http from "node:http";
import { startAgentProcess, type AgentProcess } from "../apps/agent/test/support/agent-process.js";
import { createFreshDatabase, type FreshDatabase } from "../apps/agent/test/support/fresh-postgres.js";
import { makeProjectFixture, type ProjectFixture } from "../apps/agent/test/support/project-fixture.js";
import { request } from "./load-driver.js";

/** One model call per run, a reply and no tool call. */
const script = `
rules:
  - when: { step: 0 }
    reply: "done: {{lastHuman}}"
`;

const input = (text: string) => ({ messages: [{ type: "human", content: text }] });

export interface AgentGroup {
  /** The replicas' base URLs, in start order (one for SQLite). */
  readonly urls: readonly string[];
  /** CPU time (user + system) of the agent processes so far, in milliseconds. */
  agentCpuMs(): number;
  /** CPU time of the Postgres backends serving this group's database so far (0 on SQLite). */
  postgresCpuMs(): number;
  stop(): Promise<void>;
}

export interface GroupOptions {
  /** How many agent servers. SQLite: 1. */
  readonly count: number;
  /** `agent.threads.backend`: sqlite (each process its own data folder) or postgres (a fresh database they share). */
  readonly threads: "sqlite" | "postgres";
  /** With postgres: `agent.streams.backend: redis` on this Redis URL. @default events over Postgres */
  readonly redisUrl?: string;
}

/** Starts `count` agent servers (scripted model) and waits until each listens. */
export async function startGroup(options: GroupOptions): Promise<AgentGroup> {
  const database: FreshDatabase | undefined = options.threads === "postgres" ? await createFreshDatabase("tt_bench_scale") : undefined;
  const config = [
    "sandbox:",
    "  warm_pool_size: 0",
    ...(database ? ["agent:", "  threads:", "    backend: postgres", "    postgres_url_env: TEST_PG"] : []),
    ...(database && options.redisUrl ? ["  streams:", "    backend: redis", "    redis_url_env: TEST_REDIS"] : []),
  ];
  const fixtures: ProjectFixture[] = [];
  const agents: AgentProcess[] = [];
  const stop = async () => {
    await Promise.all(agents.map((agent) => agent.stop()));
    for (const fixture of fixtures) fixture.cleanup();
    await database?.drop();
  };
  try {
    for (let index = 0; index < options.count; index++) fixtures.push(await makeProjectFixture({ script, config }));
    const env = { ...(database ? { TEST_PG: database.url } : {}), ...(options.redisUrl ? { TEST_REDIS: options.redisUrl } : {}) };
    // One after the other: start-up is CPU-bound, and the schema lock would serialise it anyway.
    for (const fixture of fixtures) agents.push(await startAgentProcess({ ...fixture.env, ...env }));
  } catch (error) {
    await stop();
    throw error;
  }
  const databaseName = database ? new URL(database.url).pathname.slice(1) : undefined;
  return {
    urls: agents.map((agent) => agent.url),
    agentCpuMs: () => agents.reduce((sum, agent) => sum + processCpuMs(agent.child.pid), 0),
    postgresCpuMs: () => (databaseName ? postgresBackendsCpuMs(databaseName) : 0),
    stop,
  };
}

/** utime + stime of a process, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second); 0 once it is gone. */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU time of the Postgres backends whose process title names `database` ("postgres: <cluster>: <user> <database> <host>(<port>) <state>"). */
function postgresBackendsCpuMs(database: string): number {
  let sum = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(` ${database} `)) continue;
    } catch {
      continue;
    }
    sum += processCpuMs(Number(entry));
  }
  return sum;
}

export interface ThroughputRound {
  readonly runs: number;
  readonly errors: number;
  readonly perSecond: number;
  /** Milliseconds from request to answer, per run. */
  readonly latencies: number[];
  readonly agentCpuMs: number;
  readonly postgresCpuMs: number;
}

/**
 * One round: `clients` clients, each with `threadsPerClient` new threads of its own, run `runsPerClient`
 * POST /threads/:id/runs/wait back to back over their threads. Requests (thread creation too) go
 * to the group's replicas round robin, one after the other, as a load balancer spreads them.
 */
export async function throughputRound(group: AgentGroup, options: { clients: number; threadsPerClient: number; runsPerClient: number }): Promise<ThroughputRound> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients });
  let next = 0;
  const pick = () => group.urls[next++ % group.urls.length] as string;
  try {
    const threads: string[][] = [];
    for (let client = 0; client < options.clients; client++) {
      const own: string[] = [];
      for (let index = 0; index < options.threadsPerClient; index++) {
        const created = await request(agent, `${pick()}/threads`, "POST", {});
        own.push((JSON.parse(created.body) as { thread_id: string }).thread_id);
      }
      threads.push(own);
    }
    const latencies: number[] = [];
    let errors = 0;
    const [agentCpu, postgresCpu] = [group.agentCpuMs(), group.postgresCpuMs()];
    const begin = performance.now();
    await Promise.all(
      threads.map(async (own) => {
        for (let index = 0; index < options.runsPerClient; index++) {
          const threadId = own[index % own.length] as string;
          const at = performance.now();
          try {
            const answer = await request(agent, `${pick()}/threads/${threadId}/runs/wait`, "POST", { assistant_id: "lead_agent", input: input(`run ${index}`) });
            if (answer.status !== 200 || !answer.body.includes(`done: run ${index}`)) errors++;
          } catch {
            errors++;
          }
          latencies.push(performance.now() - at);
        }
      }),
    );
    const seconds = (performance.now() - begin) / 1000;
    return {
      runs: latencies.length,
      errors,
      perSecond: latencies.length / seconds,
      latencies,
      agentCpuMs: group.agentCpuMs() - agentCpu,
      postgresCpuMs: group.postgresCpuMs() - postgresCpu,
    };
  } finally {
    agent.destroy();
  }
}

export interface FirstEvent {
  /** Milliseconds from POST /threads/:id/runs (on `creator`) to the first event after `metadata` on the stream (on `follower`). */
  readonly fromCreate: number;
  /** Milliseconds from opening GET /threads/:id/runs/:run_id/stream to that event. */
  readonly fromOpen: number;
  /** The event's name (values or messages). */
  readonly event: string;
}

/** A run created on `creator` and streamed from `follower` (GET /threads/:id/runs/:run_id/stream), read to its end. */
export async function firstEvent(agent: http.Agent, creator: string, follower: string, label: string): Promise<FirstEvent> {
  const thread = JSON.parse((await request(agent, `${creator}/threads`, "POST", {})).body) as { thread_id: string };
  const started = performance.now();
  const created = await request(agent, `${creator}/threads/${thread.thread_id}/runs`, "POST", { assistant_id: "lead_agent", input: input(label), stream_mode: ["values", "messages-tuple"] });
  if (created.status !== 200) throw new Error(`POST /threads/:id/runs answered ${created.status}: ${created.body}`);
  const { run_id: runId } = JSON.parse(created.body) as { run_id: string };
  const opened = performance.now();
  const { at, event } = await followToEnd(agent, `${follower}/threads/${thread.thread_id}/runs/${runId}/stream`);
  return { fromCreate: at - started, fromOpen: at - opened, event };
}

/** Reads a stream to its end; resolves with when its first event after `metadata` arrived. */
function followToEnd(agent: http.Agent, url: string): Promise<{ at: number; event: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${url} answered ${res.statusCode}`));
      let buffer = "";
      let first: { at: number; event: string } | undefined;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (first) return;
        buffer += chunk;
        for (const block of buffer.split("\n\n").slice(0, -1)) {
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event && event !== "metadata") {
            first = { at: performance.now(), event };
            return;
          }
        }
      });
      res.on("end", () => (first ? resolve(first) : reject(new Error(`the stream of ${url} ended without an event after metadata: ${buffer.slice(0, 500)}`))));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}
