import { describe, expect, it } from "vitest";
import { agentBackends } from "./support/agent-backends.js";
import { useSuiteAgent } from "./support/suite-agent.js";

type Message = { type: string; content: unknown };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;

for (const backend of agentBackends()) {
  describe(`threads.copy over the SDK (${backend.name})`, { ...backend.testOptions, timeout: 60_000 }, () => {
    const suite = useSuiteAgent(backend.fixture);

    it("copies state, history, metadata and a pending interrupt; the two threads then go their own ways", async () => {
      const source = await suite.client.threads.create({ metadata: { owner: "copy-test" } });
      await suite.client.runs.wait(source.thread_id, "lead_agent", { input: human("hello there") });
      await suite.client.runs.wait(source.thread_id, "lead_agent", { input: human("ask me") });

      const copy = await suite.client.threads.copy(source.thread_id);
      expect(copy.thread_id).not.toBe(source.thread_id);
      expect(copy.metadata).toEqual({ ...source.metadata, thread_id: copy.thread_id });
      expect(copy.status).toBe("interrupted");
      expect(Object.values(copy.interrupts).flat()[0]).toMatchObject({ value: { question: "Which colour?" } });
      expect((await suite.client.threads.get(copy.thread_id)).status).toBe("interrupted");

      const [sourceState, copyState] = await Promise.all([suite.client.threads.getState(source.thread_id), suite.client.threads.getState(copy.thread_id)]);
      expect(copyState.values).toEqual(sourceState.values);
      expect(copyState.next).toEqual(["tools"]);
      expect(copyState.checkpoint.thread_id).toBe(copy.thread_id);
      const checkpointIds = async (threadId: string) => (await suite.client.threads.getHistory(threadId, { limit: 100 })).map((state) => state.checkpoint.checkpoint_id);
      expect(await checkpointIds(copy.thread_id)).toEqual(await checkpointIds(source.thread_id));

      // Each answers its own question; neither sees the other's answer.
      const copyAnswer = messagesOf(await suite.client.runs.wait(copy.thread_id, "lead_agent", { command: { resume: "teal" } })).at(-1);
      expect(copyAnswer?.content).toBe("Your colour is teal.");
      expect((await suite.client.threads.get(source.thread_id)).status).toBe("interrupted");
      const sourceAnswer = messagesOf(await suite.client.runs.wait(source.thread_id, "lead_agent", { command: { resume: "amber" } })).at(-1);
      expect(sourceAnswer?.content).toBe("Your colour is amber.");
      expect(messagesOf((await suite.client.threads.getState(copy.thread_id)).values).at(-1)?.content).toBe("Your colour is teal.");

      // The copy outlives its source.
      await suite.client.threads.delete(source.thread_id);
      expect(messagesOf((await suite.client.threads.getState(copy.thread_id)).values).map((m) => m.type)).toEqual(["human", "ai", "human", "ai", "tool", "ai"]);
      expect((await suite.client.threads.search({ metadata: { thread_id: copy.thread_id } })).map((t) => t.thread_id)).toEqual([copy.thread_id]);
    });

    it("copies a thread that never ran, and refuses unknown and malformed ids", async () => {
      const empty = await suite.client.threads.create({ metadata: { owner: "copy-empty" } });
      const copy = await suite.client.threads.copy(empty.thread_id);
      expect(copy).toMatchObject({ status: "idle", metadata: { owner: "copy-empty" } });
      expect((await suite.client.threads.getState(copy.thread_id)).values).toEqual({});

      const missing = await fetch(`${suite.agent.url}/threads/00000000-0000-4000-8000-000000000000/copy`, { method: "POST" });
      expect([missing.status, ((await missing.json()) as { code: string }).code]).toEqual([404, "THREAD_NOT_FOUND"]);
      const malformed = await fetch(`${suite.agent.url}/threads/not%20an%20id/copy`, { method: "POST" });
      expect([malformed.status, ((await malformed.json()) as { code: string }).code]).toEqual([400, "VALIDATION_FAILED"]);
    });
  });
}
