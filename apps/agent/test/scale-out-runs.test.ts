// Two agent server processes on one Postgres database, as replicas behind a load balancer: a run
// created on one is joined, streamed, listed and cancelled from the other; a thread's runs execute
// one at a time in creation order whichever replica admitted them, under every multitask strategy.
// The database is the suite's own (replicas hear every run notice on their database).
import pg from "pg";
import { needs, processesWithMarker } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
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

const suite = useSuiteReplicas({ script, config: ["code_execution:", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 0"] });

type Message = { type: string; content: unknown; status?: string; tool_call_id?: string; tool_calls?: { id: string; name: string }[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;
const cancelledText = "cancelled: the run was cancelled before this tool call finished";
/** A sleep whose command line no other process has: `sleep 20.<digits>`. */
const uniqueSleep = () => `20.${process.pid}${Date.now() % 1_000_000}`;
/** Runs each of the 4 clients creates per strategy. */
const runsPerClient = 25;

/** The replicas (`host:pid:suffix`) the runs' rows name as their owners: where each executed. */
async function ownersOf(runIds: readonly string[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: suite.databaseUrl });
  await client.connect();
  try {
    const rows = (await client.query<{ run_id: string; owner: string }>("SELECT run_id, owner FROM thinktank_runs WHERE run_id = ANY($1::text[])", [runIds])).rows;
    return runIds.map((runId) => rows.find((row) => row.run_id === runId)?.owner ?? "");
  } finally {
    await client.end();
  }
}
const ownerOf = async (runId: string): Promise<string> => (await ownersOf([runId]))[0] as string;
const pidOf = (replica: Replica) => `:${replica.agent.child.pid}:`;

async function collect(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<{ event: string; data: unknown }[]> {
  const parts: { event: string; data: unknown }[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** POST /threads/:id/runs as it answers: the run, or the refusal's status. */
async function createRun(replica: Replica, threadId: string, body: object): Promise<{ status: number; run?: { run_id: string; created_at: string } }> {
  const response = await fetch(`${replica.agent.url}/threads/${threadId}/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "lead_agent", ...body }) });
  const answer = (await response.json()) as { run_id: string; created_at: string };
  return response.ok ? { status: response.status, run: answer } : { status: response.status };
}

describe("runs shared by two agent servers on one Postgres", { timeout: 240_000, ...needs("postgres") }, () => {
  it("runs on B a run created on B for a thread created on A; A streams, joins, gets and lists it", async () => {
    const [a, b] = suite.replicas as [Replica, Replica];
    const thread = await a.client.threads.create();
    const run = await b.client.runs.create(thread.thread_id, "lead_agent", { input: human("hello from b") });
    const streamed = await collect(a.client.runs.joinStream(thread.thread_id, run.run_id));
    expect(streamed[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id } });
    expect(streamed.map((part) => part.event)).toContain("values");
    const joined = await a.client.runs.join(thread.thread_id, run.run_id);
    expect(messagesOf(joined).map((message) => [message.type, message.content])).toEqual([
      ["human", "hello from b"],
      ["ai", "done: hello from b"],
    ]);
    expect(await ownerOf(run.run_id)).toContain(pidOf(b));
    expect((await a.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    expect((await a.client.runs.list(thread.thread_id)).map((listed) => listed.run_id)).toEqual([run.run_id]);
    expect((await a.client.threads.get(thread.thread_id)).status).toBe("idle");
    // A run waited for on A, created there: its stream carries every event, as on one server.
    const waited = await a.client.runs.wait(thread.thread_id, "lead_agent", { input: human("and from a") });
    expect(messagesOf(waited).at(-1)?.content).toBe("done: and from a");
  });

  it("cancels from A a run executing on B: the bash sleep it runs on B is gone when the cancel answers", { ...needs("bubblewrap") }, async () => {
    const [a, b] = suite.replicas as [Replica, Replica];
    const thread = await a.client.threads.create();
    const seconds = uniqueSleep();
    const run = await b.client.runs.create(thread.thread_id, "lead_agent", { input: human(`shell sleep ${seconds}`) });
    await expect.poll(() => processesWithMarker(`sleep ${seconds}`).length, { timeout: 120_000, interval: 25, message: "the sleep started on B" }).toBeGreaterThan(0);
    expect(await ownerOf(run.run_id)).toContain(pidOf(b));

    await a.client.runs.cancel(thread.thread_id, run.run_id, true);
    expect(processesWithMarker(`sleep ${seconds}`)).toEqual([]);
    expect((await a.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    const messages = messagesOf((await a.client.threads.getState(thread.thread_id)).values);
    expect(messages.map((message) => message.type)).toEqual(["human", "ai", "tool"]);
    expect(messages[2]).toMatchObject({ type: "tool", status: "error", content: cancelledText });
    expect((await b.client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  for (const strategy of ["enqueue", "reject", "interrupt", "rollback"] as const) {
    it(`4 clients × ${runsPerClient} runs on one thread over both replicas with ${strategy}: one run at a time, in creation order`, async () => {
      const [a, b] = suite.replicas as [Replica, Replica];
      const thread = await a.client.threads.create();
      const created: { runId: string; createdAt: string; label: string }[] = [];
      let refused = 0;
      await Promise.all(
        [0, 1, 2, 3].map(async (client) => {
          for (let index = 0; index < runsPerClient; index++) {
            const replica = (client + index) % 2 === 0 ? a : b;
            const label = `step ${client}.${index}`;
            const answer = await createRun(replica, thread.thread_id, { input: human(label), multitask_strategy: strategy });
            if (!answer.run) {
              // Only reject refuses, and only a busy thread.
              expect([strategy, answer.status]).toEqual(["reject", 409]);
              refused++;
              continue;
            }
            created.push({ runId: answer.run.run_id, createdAt: answer.run.created_at, label });
            if (strategy === "reject") await replica.client.runs.join(thread.thread_id, answer.run.run_id);
          }
        }),
      );
      created.sort((x, y) => x.createdAt.localeCompare(y.createdAt));
      expect(new Set(created.map((run) => run.createdAt)).size).toBe(created.length);
      const last = created.at(-1) as (typeof created)[number];
      // The last admitted run ends last: every run before it has ended by then.
      await b.client.runs.join(thread.thread_id, last.runId);

      const statuses = await Promise.all(created.map(async (run) => (await a.client.runs.get(thread.thread_id, run.runId).catch(() => ({ status: "deleted" }))).status));
      const messages = messagesOf((await b.client.threads.getState(thread.thread_id)).values);
      const executed = messages.filter((message) => message.type === "human").map((message) => message.content as string);
      // Execution order (the thread's history) is creation order; each answer follows its own question.
      expect(executed).toEqual(created.map((run) => run.label).filter((label) => executed.includes(label)));
      messages.forEach((message, index) => {
        if (message.type === "ai") expect(message.content).toBe(`done: ${messages[index - 1]?.content as string}`);
      });
      expect(statuses.at(-1)).toBe("success");
      if (strategy === "enqueue") {
        expect(statuses).toEqual(created.map(() => "success"));
        expect(executed).toHaveLength(4 * runsPerClient);
        // Each replica executed the runs it admitted.
        const owners = await ownersOf(created.map((run) => run.runId));
        expect(new Set(owners.map((owner) => (owner.includes(pidOf(a)) ? "a" : owner.includes(pidOf(b)) ? "b" : owner)))).toEqual(new Set(["a", "b"]));
      } else if (strategy === "reject") {
        expect(statuses).toEqual(created.map(() => "success"));
        expect(created.length + refused).toBe(4 * runsPerClient);
        expect(executed).toEqual(created.map((run) => run.label));
        // Four clients at once on one thread: some found it busy.
        expect(refused).toBeGreaterThan(0);
      } else {
        // interrupt / rollback: each run cancels those before it; a cancelled one is interrupted, or deleted by rollback.
        const cancelled = strategy === "interrupt" ? "interrupted" : "deleted";
        for (const status of statuses) expect(["success", cancelled]).toContain(status);
        // Clients that do not wait for their runs: runs were cancelled, on either replica.
        expect(statuses.filter((status) => status === cancelled).length).toBeGreaterThan(0);
      }
      expect((await a.client.threads.get(thread.thread_id)).status).toBe("idle");
      expect(await a.client.runs.list(thread.thread_id, { status: "pending" })).toEqual([]);
    });
  }
});
