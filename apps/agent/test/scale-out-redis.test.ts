// Two agent server processes on one Postgres with their run events over Redis
// (agent.streams.backend: redis): a run executing on one is streamed and joined from the other, and
// a thread's runs admitted on both execute in creation order.
import { needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { useSuiteReplicas, type Replica } from "./support/suite-replicas.js";

const script = `
rules: []
fallback:
  reply: "done: {{lastHuman}}"
`;

const suite = useSuiteReplicas({ script, streams: "redis" });

type Message = { type: string; content: unknown };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;

async function collect(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<{ event: string; data: unknown }[]> {
  const parts: { event: string; data: unknown }[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("runs shared by two agent servers, events over Redis", { timeout: 240_000, ...needs("postgres"), ...needs("redis") }, () => {
  it("streams and joins from A a run executing on B; runs admitted on both execute in creation order", async () => {
    const [a, b] = suite.replicas as [Replica, Replica];
    const thread = await a.client.threads.create();
    const run = await b.client.runs.create(thread.thread_id, "lead_agent", { input: human("hello over redis") });
    const streamed = await collect(a.client.runs.joinStream(thread.thread_id, run.run_id));
    expect(streamed[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id } });
    expect(streamed.map((part) => part.event)).toContain("values");
    expect(messagesOf(await a.client.runs.join(thread.thread_id, run.run_id)).at(-1)?.content).toBe("done: hello over redis");

    const labels = Array.from({ length: 10 }, (_, index) => `step ${index}`);
    const created = [];
    for (const [index, label] of labels.entries()) {
      created.push(await (index % 2 ? a : b).client.runs.create(thread.thread_id, "lead_agent", { input: human(label), multitaskStrategy: "enqueue" }));
    }
    await a.client.runs.join(thread.thread_id, created.at(-1)?.run_id as string);
    const humans = messagesOf((await b.client.threads.getState(thread.thread_id)).values).filter((message) => message.type === "human");
    expect(humans.map((message) => message.content)).toEqual(["hello over redis", ...labels]);
  });
});
