// The load driver behind bench/load.bench.ts: a real agent server process (scripted model, one tool
// call per run) driven over loopback HTTP by N concurrent clients for a bounded time.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { parseSse, streamSignature } from "../apps/agent/test/support/sse.js";

/** A run with one tool call (ls of the skills folder, which needs no input): 7 `messages` events at concurrency 1. */
const script = `
rules:
  - when: { last_human: "^list (\\\\S+)", step: 0 }
    reply: "Listing it."
    tool_calls: [{ name: ls, args: { path: "{{match.1}}" } }]
  - when: { last_tool_name: ls }
    reply: "Listed: {{lastToolResult}}"
fallback:
  reply: "You said: {{lastHuman}}"
`;

/** The body of every run: a stateless run (POST /runs/wait or /runs/stream) with one tool call. */
export const toolRunBody = {
  assistant_id: "lead_agent",
  input: { messages: [{ type: "human", content: "list /mnt/skills" }] },
  stream_mode: ["values", "messages-tuple"],
};

export interface LoadAgent {
  readonly url: string;
  /** Resident set size of the agent process, in MiB (from /proc). */
  rssMiB(): number;
  /** CPU time the agent process used so far (user + system), in milliseconds (from /proc). */
  cpuMs(): number;
  /** SIGTERM, then waits for the exit (a --cpu-prof profile is written then). */
  stop(): Promise<void>;
}

/** A temp project (scripted model, one skill) and the agent server (apps/agent/src/start.ts) running on it as a child process. */
export async function startLoadAgent(options: { root: string; nodeArgs?: string[]; config?: readonly string[] }): Promise<LoadAgent> {
  const temp = makeTempDir("tt-bench-load-");
  const port = await freePort();
  const config = ["data_dir: data", "log:", "  level: warn", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", "sandbox:", "  warm_pool_size: 0", ...(options.config ?? []), ""];
  writeTree(temp.dir, {
    "config.yaml": config.join("\n"),
    "script.yaml": script,
    "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nThe secret word is pelican.\n",
    "skills/custom/.keep": "",
    "extensions_config.json": '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n',
  });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", THINKTANK_CONFIG: path.join(temp.dir, "config.yaml"), AGENT_PORT: String(port), NODE_OPTIONS: "--conditions=development" };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--import", "tsx", path.join(options.root, "apps/agent/src/start.ts")], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent did not start within 120 s:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`agent exited before listening:\n${output}`)));
  });
  const procFile = (name: string) => fs.readFileSync(`/proc/${child.pid}/${name}`, "utf8");
  return {
    url,
    rssMiB: () => Number(/VmRSS:\s+(\d+)/.exec(procFile("status"))?.[1] ?? 0) / 1024,
    cpuMs: () => {
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
      const fields = procFile("stat").split(") ")[1]?.split(" ") ?? [];
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(killer);
      temp.cleanup();
    },
  };
}

/** One HTTP request over `agent`; resolves with the status and the whole body. */
export function request(agent: http.Agent, url: string, method: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** The signature (see streamSignature) of one stream of the tool run. */
export async function streamOnce(url: string): Promise<string> {
  const agent = new http.Agent({ keepAlive: false });
  const answer = await request(agent, `${url}/runs/stream`, "POST", toolRunBody);
  return streamSignature(parseSse(answer.body)).join("\n");
}

export interface LoadResult {
  readonly runs: number;
  readonly perSecond: number;
  /** Milliseconds from request to the end of the answer, per run. */
  readonly latencies: number[];
  readonly errors: number;
  /** Streams whose signature equals `expected` (stream mode only). */
  readonly complete: number;
}

/**
 * `concurrency` clients, each running the tool run back to back (POST /runs/wait, or /runs/stream
 * compared with `expected`) until `durationMs` passed or `maxRuns` were started.
 */
export async function drive(options: { url: string; concurrency: number; durationMs: number; maxRuns?: number; mode: "wait" | "stream"; expected?: string }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  let complete = 0;
  let started = 0;
  const begin = performance.now();
  const until = begin + options.durationMs;
  const client = async (): Promise<void> => {
    while (performance.now() < until && started < (options.maxRuns ?? Infinity)) {
      started++;
      const at = performance.now();
      try {
        const answer = await request(agent, `${options.url}/runs/${options.mode}`, "POST", toolRunBody);
        latencies.push(performance.now() - at);
        if (answer.status !== 200) errors++;
        else if (options.mode === "stream" && streamSignature(parseSse(answer.body)).join("\n") === options.expected) complete++;
      } catch {
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    agent.destroy();
  }
  return { runs: latencies.length, perSecond: (latencies.length / (performance.now() - begin)) * 1000, latencies, errors, complete };
}

/** GET /healthz every `everyMs` on a connection of its own until stopped; resolves with the latencies. */
export function sampleHealthz(url: string, everyMs = 20): { stop(): Promise<number[]> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = performance.now();
      await request(agent, `${url}/healthz`, "GET");
      latencies.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return latencies;
    },
  };
}

/** The q-quantile of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}
