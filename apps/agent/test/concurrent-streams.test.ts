// 32 streams at once of a run with a tool call (ls, which needs no input): every stream carries
// every event of its run in order and ends with the final values, exactly as one stream alone does,
// and a join after the end replays the same events from the run's kept log. Before the fix, the
// `messages` events of LangGraph's callback handler went through LangChain's background callback
// queue and most streams lost their last ones (the stream had closed) or got them after `values`.
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";
import { requestSse, streamSignature, type SseEvent } from "./support/sse.js";

const suite = useSuiteAgent();

const toolRun = { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "list /mnt/skills" }] }, stream_mode: ["values", "messages-tuple"], if_not_exists: "create" };

interface Streamed {
  readonly threadId: string;
  readonly runId: string;
  readonly events: SseEvent[];
}

async function streamToolRun(): Promise<Streamed> {
  const threadId = crypto.randomUUID();
  const answer = await requestSse(`${suite.agent.url}/threads/${threadId}/runs/stream`, { body: toolRun });
  expect(answer.status).toBe(200);
  return { threadId, runId: (answer.events[0]?.data as { run_id: string }).run_id, events: answer.events };
}

describe("concurrent streams", { timeout: 120_000 }, () => {
  it("32 streams at once each carry every event of their run, and a join after the end replays them", async () => {
    const alone = streamSignature((await streamToolRun()).events);
    // model (3 chunks) → tool message → model (3 chunks), a values event after each step.
    expect(alone.filter((event) => event.startsWith("messages "))).toHaveLength(7);
    expect(alone[0]).toBe("metadata");
    expect(alone.at(-1)).toBe("values 4");

    const streams = await Promise.all(Array.from({ length: 32 }, streamToolRun));
    const differing = streams.filter((stream) => streamSignature(stream.events).join("\n") !== alone.join("\n"));
    expect(differing.map((stream) => streamSignature(stream.events))).toEqual([]);
    for (const stream of streams) expect(stream.events.map((event) => event.id)).toEqual(stream.events.map((_, index) => String(index)));

    const joins = await Promise.all(streams.map((stream) => requestSse(`${suite.agent.url}/threads/${stream.threadId}/runs/${stream.runId}/stream`)));
    joins.forEach((join, index) => {
      expect(join.status).toBe(200);
      expect(join.events).toEqual(streams[index]?.events);
    });
  });
});
