// The events a process keeps for joins are bounded by finished runs (agent.run_events.max_runs) and
// by bytes (max_mb): the oldest finished runs go first, and a stream of a run whose events are gone
// answers 410 RUN_EVENTS_EXPIRED (an unknown run stays 404), while its join still answers.
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { requestSse } from "./support/sse.js";
import { useSuiteAgents } from "./support/suite-agent.js";

/** About 10 KB: a handful of the runs below. */
const maxMb = 0.01;

const runEvents = (lines: string[]) => ({ extraConfig: ["agent:", "  run_events:", ...lines.map((line) => `    ${line}`)] });
const [byCount, byBytes] = useSuiteAgents(runEvents(["max_runs: 2"]), runEvents([`max_mb: ${maxMb}`]));

/** Runs one run to its end on a new thread; returns its ids. */
async function runToEnd(url: string, text: string): Promise<{ threadId: string; runId: string }> {
  const threadId = crypto.randomUUID();
  const answer = await fetch(`${url}/threads/${threadId}/runs/wait`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ type: "human", content: text }] }, stream_mode: ["values", "messages-tuple"], if_not_exists: "create" }),
    signal: AbortSignal.timeout(30_000),
  });
  expect(answer.status).toBe(200);
  const runId = /\/runs\/([^/]+)$/.exec(answer.headers.get("content-location") ?? "")?.[1] as string;
  return { threadId, runId };
}

const joinStream = (url: string, run: { threadId: string; runId: string }) => requestSse(`${url}/threads/${run.threadId}/runs/${run.runId}/stream`);

describe("kept run events", { timeout: 90_000 }, () => {
  it("keeps the events of the last max_runs finished runs; older ones answer 410 RUN_EVENTS_EXPIRED, unknown runs 404", async () => {
    const { url } = byCount.agent;
    const runs = [];
    for (let index = 0; index < 3; index++) runs.push(await runToEnd(url, `hello ${index}`));
    const [oldest, ...kept] = await Promise.all(runs.map((run) => joinStream(url, run)));
    expect(oldest?.status).toBe(410);
    expect(oldest?.body).toMatchObject({ code: "RUN_EVENTS_EXPIRED", details: { run_id: runs[0]?.runId } });
    for (const answer of kept) {
      expect(answer.status).toBe(200);
      expect(answer.events.at(-1)?.event).toBe("values");
    }
    // The stateless form says the same; its join still answers from the thread.
    expect((await requestSse(`${url}/runs/${runs[0]?.runId}/stream`)).status).toBe(410);
    const joined = await fetch(`${url}/threads/${runs[0]?.threadId}/runs/${runs[0]?.runId}/join`);
    expect(joined.status).toBe(200);
    expect(((await joined.json()) as { messages: { content: string }[] }).messages.at(-1)?.content).toContain("hello 0");
    const unknown = await requestSse(`${url}/threads/${runs[0]?.threadId}/runs/${crypto.randomUUID()}/stream`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "RUN_NOT_FOUND" });
  });

  it("keeps at most max_mb of events: the oldest finished runs go first", async () => {
    const { url } = byBytes.agent;
    const runs = [];
    for (let index = 0; index < 8; index++) runs.push(await runToEnd(url, `list /mnt/skills`));
    const answers = [];
    for (const run of runs) answers.push(await joinStream(url, run));
    const statuses = answers.map((answer) => answer.status);
    // Some dropped, the newest kept, and never a kept run older than a dropped one.
    expect(statuses).toContain(410);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.slice(statuses.lastIndexOf(410) + 1).every((status) => status === 200)).toBe(true);
    const keptBytes = answers.filter((answer) => answer.status === 200).reduce((sum, answer) => sum + answer.events.reduce((bytes, event) => bytes + frameBytes(event), 0), 0);
    expect(keptBytes).toBeLessThanOrEqual(maxMb * 1024 * 1024);
    expect(keptBytes).toBeGreaterThan(0);
  });
});

/** The bytes of one event as the server wrote it. */
function frameBytes(event: { id?: string; event: string; data: unknown }): number {
  return Buffer.byteLength(`id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
}
