// Shared by the benchmarks that report HTTP throughput: real requests over loopback with keep-alive.
import http from "node:http";
import { summarize } from "./harness.js";
import type { Summary } from "./harness.js";

export interface RequestsPerSecondOptions {
  /** Requests in flight at once. @default 8 */
  readonly connections?: number;
  /** How long to measure. @default 3000 */
  readonly durationMs?: number;
  /** Untimed requests first (JIT, caches). @default 500 */
  readonly warmupMs?: number;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RequestsPerSecond {
  readonly requestsPerSecond: number;
  readonly requests: number;
  /** Latency of each request, in milliseconds. */
  readonly latency: Summary;
  /** Answers with a status other than 2xx (a benchmark should fail on these). */
  readonly errors: number;
}

/** GETs `url` from `connections` keep-alive loops for `durationMs` and counts the answers. */
export async function measureRequestsPerSecond(url: string, options: RequestsPerSecondOptions = {}): Promise<RequestsPerSecond> {
  const { connections = 8, durationMs = 3000, warmupMs = 500, headers = {} } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const once = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const request = http.get(url, { agent, headers }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", reject);
      });
      request.on("error", reject);
    });
  const loop = async (until: number, record: boolean, latencies: number[], statuses: number[]): Promise<void> => {
    while (performance.now() < until) {
      const start = performance.now();
      const status = await once();
      if (record) {
        latencies.push(performance.now() - start);
        statuses.push(status);
      }
    }
  };
  try {
    const warmupEnd = performance.now() + warmupMs;
    await Promise.all(Array.from({ length: connections }, () => loop(warmupEnd, false, [], [])));
    const latencies: number[] = [];
    const statuses: number[] = [];
    const start = performance.now();
    await Promise.all(Array.from({ length: connections }, () => loop(start + durationMs, true, latencies, statuses)));
    const elapsed = performance.now() - start;
    return {
      requestsPerSecond: (latencies.length / elapsed) * 1000,
      requests: latencies.length,
      latency: summarize(latencies),
      errors: statuses.filter((status) => status < 200 || status >= 300).length,
    };
  } finally {
    agent.destroy();
  }
}
