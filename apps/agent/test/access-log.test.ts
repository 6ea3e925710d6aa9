// Access logs that cost little: at the default level a healthy request writes no line; a 4xx is
// logged at info, a slow answer at warn, and one request id (X-Request-Id, else a new UUID) ties
// the access line of a request to the lines of the run it created.
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AgentProcess } from "./support/agent-process.js";
import { useSuiteAgents } from "./support/suite-agent.js";

const scripted = ["models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml"];
const config = (lines: string[]) => ({ configYaml: ["data_dir: data", ...lines, ...scripted, ""].join("\n") });

// At info, slow_request_ms is out of reach: a loaded machine must not turn the healthy requests into slow ones (warn).
const [atInfo, atDebug] = useSuiteAgents(config(["log:", "  level: info", "agent:", "  slow_request_ms: 600000"]), config(["log:", "  level: debug", "agent:", "  slow_request_ms: 0"]));

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly [field: string]: unknown;
}

/** A JSON log line, or undefined for any other line. */
function logLine(line: string): LogLine | undefined {
  return line.startsWith("{") ? (JSON.parse(line) as LogLine) : undefined;
}

/** Waits until the process printed a log line for each of `awaited` (bounded), and returns all its log lines. */
async function linesWhen(agent: AgentProcess, ...awaited: ((line: LogLine) => boolean)[]): Promise<LogLine[]> {
  const matching = (match: (line: LogLine) => boolean) => (line: string) => {
    const parsed = logLine(line);
    return parsed !== undefined && match(parsed);
  };
  await Promise.all(awaited.map((match) => agent.lines.waitFor(matching(match), 10_000)));
  return agent.lines.lines.flatMap((line) => logLine(line) ?? []);
}

const level = { debug: 20, info: 30, warn: 40 };

function runRequest(url: string, requestId: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/threads/${crypto.randomUUID()}/runs/wait`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify({ assistant_id: "lead_agent", if_not_exists: "create", ...body }),
    signal: AbortSignal.timeout(30_000),
  });
}

describe("access log", { timeout: 60_000 }, () => {
  it("at info: no line for a healthy request, info for a 4xx and for a failed run, one request id across them", async () => {
    const { url } = atInfo.agent;
    const healthy = await fetch(`${url}/healthz`, { headers: { "x-request-id": "healthy-1" } });
    expect(healthy.headers.get("x-request-id")).toBe("healthy-1");
    const ok = await runRequest(url, "ok-run-1", { input: { messages: [{ type: "human", content: "hello" }] } });
    expect(ok.status).toBe(200);
    const missing = await fetch(`${url}/threads/${crypto.randomUUID()}`, { headers: { "x-request-id": "missing-1" } });
    expect(missing.status).toBe(404);
    // One model call, then the tool step would need a second: past the recursion limit, the run fails.
    const failing = await runRequest(url, "failing-run-1", { input: { messages: [{ type: "human", content: "list /mnt/skills" }] }, config: { recursion_limit: 1 } });
    expect(failing.status).toBe(200);
    expect(failing.headers.get("x-request-id")).toBe("failing-run-1");

    const lines = await linesWhen(atInfo.agent, (line) => line.reqId === "failing-run-1" && line.msg === "run failed");
    expect(lines.find((line) => line.reqId === "missing-1")).toMatchObject({ level: level.info, msg: "request", method: "GET", status: 404, caller: "admin" }); // key-less: the local operator
    const failed = lines.find((line) => line.reqId === "failing-run-1" && line.msg === "run failed");
    expect(failed).toMatchObject({ level: level.info, status: "error", error: "GraphRecursionError" });
    expect(lines.filter((line) => line.reqId === "healthy-1" || line.reqId === "ok-run-1")).toEqual([]);
    // Fastify's own per-request lines are gone.
    expect(lines.filter((line) => line.msg === "incoming request" || line.msg === "request completed")).toEqual([]);
  });

  it("at debug: every request, a slow one at warn (slow_request_ms 0), streams at debug; the run's lines share the request id", async () => {
    const { url } = atDebug.agent;
    const answer = await runRequest(url, "slow-run-1", { input: { messages: [{ type: "human", content: "hello" }] } });
    expect(answer.status).toBe(200);
    const runId = /\/runs\/([^/]+)$/.exec(answer.headers.get("content-location") ?? "")?.[1];
    const stream = await fetch(`${url}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "stream-1" },
      body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "hello" }] } }),
    });
    await stream.text();
    const fresh = await fetch(`${url}/healthz`);
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    const lines = await linesWhen(atDebug.agent, (line) => line.reqId === "stream-1" && line.msg === "request", (line) => line.reqId === "slow-run-1" && line.msg === "request");
    const ofRun = lines.filter((line) => line.reqId === "slow-run-1");
    expect(ofRun.find((line) => line.msg === "request")).toMatchObject({ level: level.warn, status: 200, runId });
    expect(ofRun.find((line) => line.msg === "run ended")).toMatchObject({ level: level.debug, runId, status: "success" });
    expect(lines.find((line) => line.reqId === "stream-1" && line.msg === "request")).toMatchObject({ level: level.debug, status: 200, url: "/runs/stream" });
  });
});
