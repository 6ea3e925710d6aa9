// An agent server killed with SIGKILL mid-run, beside another on the same Postgres: the other marks
// the dead one's running run `error` within agent.runs.stale_after_seconds (plus a heartbeat),
// takes over the run it held pending, and keeps serving.
import pg from "pg";
import { needs, processesWithMarker } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { useSuiteReplicas, type Replica } from "./support/suite-replicas.js";

const script = `
rules:
  - when: { last_human: "^shell (.+)$", step: 0 }
    tool_calls: [{ name: bash, args: { command: "{{match.1}}" } }]
  - when: { last_tool_name: bash }
    reply: "bash said: {{lastToolResult}}"
fallback:
  reply: "done: {{lastHuman}}"
`;

const heartbeatSeconds = 1;
const staleAfterSeconds = 3;
const suite = useSuiteReplicas({ script, runs: { heartbeatSeconds, staleAfterSeconds }, config: ["code_execution:", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 0"] });

type Message = { type: string; content: unknown };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;
/** A sleep whose command line no other process has: `sleep 20.<digits>`. */
const seconds = `20.${process.pid}${Date.now() % 1_000_000}`;

afterAll(() => {
  // The killed server's sandboxed sleep, should it have outlived it.
  for (const pid of processesWithMarker(`sleep ${seconds}`)) process.kill(pid, "SIGKILL");
});

async function ownerOf(runId: string): Promise<string> {
  const client = new pg.Client({ connectionString: suite.databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ owner: string | null }>("SELECT owner FROM thinktank_runs WHERE run_id = $1", [runId])).rows[0]?.owner ?? "";
  } finally {
    await client.end();
  }
}

describe("an agent server killed mid-run beside another", { timeout: 240_000, ...needs("postgres"), ...needs("bubblewrap") }, () => {
  it("its running run ends error within the bound, its pending run runs on the other, which keeps serving", async () => {
    const [a, b] = suite.replicas as [Replica, Replica];
    const thread = await a.client.threads.create();
    const running = await b.client.runs.create(thread.thread_id, "lead_agent", { input: human(`shell sleep ${seconds}`) });
    const pending = await b.client.runs.create(thread.thread_id, "lead_agent", { input: human("after the crash"), multitaskStrategy: "enqueue" });
    await expect.poll(() => processesWithMarker(`sleep ${seconds}`).length, { timeout: 120_000, interval: 25, message: "the sleep started on B" }).toBeGreaterThan(0);
    expect(await ownerOf(running.run_id)).toContain(`:${b.agent.child.pid}:`);

    const killed = performance.now();
    b.agent.child.kill("SIGKILL");
    const joined = await a.client.runs.join(thread.thread_id, running.run_id);
    const tookSeconds = (performance.now() - killed) / 1000;
    expect(joined).toEqual({ __error__: { error: "REPLICA_STOPPED", message: expect.stringMatching(/^the agent server executing it stopped: no heartbeat for \d+ s$/) } });
    // Stale after 3 s; A looks each heartbeat (1 s); B's last heartbeat was at most 1 s before the kill.
    expect(tookSeconds).toBeLessThan(staleAfterSeconds + 2 * heartbeatSeconds + 3);
    expect((await a.client.runs.get(thread.thread_id, running.run_id)).status).toBe("error");

    // The run B held pending behind it is taken over by A once B's heartbeat is stale, and runs in turn.
    const after = await a.client.runs.join(thread.thread_id, pending.run_id);
    expect(messagesOf(after).at(-1)).toMatchObject({ type: "ai", content: "done: after the crash" });
    expect(await ownerOf(pending.run_id)).toContain(`:${a.agent.child.pid}:`);
    expect((await a.client.runs.get(thread.thread_id, pending.run_id)).status).toBe("success");

    const served = await a.client.runs.wait(thread.thread_id, "lead_agent", { input: human("still here") });
    expect(messagesOf(served).at(-1)?.content).toBe("done: still here");
    expect((await a.client.threads.get(thread.thread_id)).status).toBe("idle");
  });
});
