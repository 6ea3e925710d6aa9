// Cancelling a run while bash runs a long command: the command's processes die with the cancel,
// and the thread's history is closed (each open tool call answered "cancelled"), so the next run
// builds on it. The agent server is a real process; bash runs in the configured sandbox.
import { needs, processesWithMarker } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { useSuiteProject } from "./support/suite-agent.js";

const script = `
rules:
  - when: { last_human: "^shell (.+)$", step: 0 }
    tool_calls: [{ name: bash, args: { command: "{{match.1}}" } }]
  - when: { last_tool_name: bash }
    reply: "bash said: {{lastToolResult}}"
fallback:
  reply: "You said: {{lastHuman}}"
`;

const cancelledText = "cancelled: the run was cancelled before this tool call finished";

const suite = useSuiteProject({ script, config: ["code_execution:", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 0"] });

type Message = { type: string; content: unknown; status?: string; tool_call_id?: string; tool_calls?: { id: string; name: string }[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;
/** A sleep whose command line no other process has: `sleep 20.<digits>`. */
const uniqueSleep = () => `20.${process.pid}${Date.now() % 1_000_000}`;

/** Waits for a process whose command line holds `marker` to appear (no event tells of a sandboxed process, so /proc is polled). */
const started = (marker: string, what: string) => expect.poll(() => processesWithMarker(marker).length, { timeout: 120_000, interval: 25, message: what }).toBeGreaterThan(0);

/** The history after a cancelled bash call: the AI message's call answered by an error tool message. */
function expectClosed(messages: Message[], upTo: number): void {
  expect(messages.slice(0, upTo).map((message) => message.type)).toEqual(["human", "ai", "tool"]);
  const call = messages[1]?.tool_calls?.[0];
  expect(call?.name).toBe("bash");
  expect(messages[2]).toMatchObject({ type: "tool", tool_call_id: call?.id, status: "error", content: cancelledText });
}

// A real `sleep` process needs bubblewrap: deno's bash is just-bash, which starts no process (the deno
// kill on cancel is checked in packages/codemode's code-mode-failures.test.ts).
describe("cancelling a run during a bash call", { timeout: 180_000, ...needs("bubblewrap") }, () => {
  it("cancel with wait returns once the command's processes are gone; the history is closed and the next run builds on it", async () => {
    const thread = await suite.client.threads.create();
    const seconds = uniqueSleep();
    const run = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human(`shell sleep ${seconds}`) });
    await started(`sleep ${seconds}`, "the sleep started");

    await suite.client.runs.cancel(thread.thread_id, run.run_id, true);
    // wait=true: the process tree is already gone when the cancel answers.
    expect(processesWithMarker(`sleep ${seconds}`)).toEqual([]);
    expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");

    const state = await suite.client.threads.getState(thread.thread_id);
    expectClosed(messagesOf(state.values), 3);
    expect(messagesOf(state.values)).toHaveLength(3);
    expect(state.next).toEqual([]);
    const [latest] = await suite.client.threads.getHistory(thread.thread_id, { limit: 1 });
    expect(messagesOf(latest?.values).at(-1)).toMatchObject({ type: "tool", content: cancelledText });
    expect((await suite.client.threads.get(thread.thread_id)).status).toBe("idle");

    const next = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("hello again") });
    const messages = messagesOf(next);
    expectClosed(messages, 3);
    expect(messages.slice(3).map((message) => [message.type, message.content])).toEqual([
      ["human", "hello again"],
      ["ai", "You said: hello again"],
    ]);
  });

  it("a rollback run stops the running bash command, closes the history, then runs on it", async () => {
    const thread = await suite.client.threads.create();
    const seconds = uniqueSleep();
    const first = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human(`shell sleep ${seconds}`) });
    await started(`sleep ${seconds}`, "the sleep started");

    const values = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("after the rollback"), multitaskStrategy: "rollback" });
    expect(processesWithMarker(`sleep ${seconds}`)).toEqual([]);
    const messages = messagesOf(values);
    expectClosed(messages, 3);
    expect(messages.slice(3).map((message) => message.content)).toEqual(["after the rollback", "You said: after the rollback"]);
    // Rollback deletes the cancelled run's record; the checkpoints it wrote, now closed, stay.
    await expect(suite.client.runs.get(thread.thread_id, first.run_id)).rejects.toThrow();
  });
});
