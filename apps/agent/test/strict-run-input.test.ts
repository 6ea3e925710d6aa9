import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";

/**
 * Malformed run input and state updates through the LangGraph API, as a new user would send them:
 * refused at the edge with 422 INVALID_STATE_INPUT naming the field, nothing recorded, and the
 * thread still answers (issue 28: a message with role "nobody" used to wedge the run `running` and
 * the thread `busy` for good, with `runs.wait` answering 200 `{}`).
 */
const suite = useSuiteAgent();

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${suite.agent.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const refused = (field: string) => ({ status: 422, body: { code: "INVALID_STATE_INPUT", message: expect.any(String), details: { field } } });

describe("malformed run input and state updates", { timeout: 60_000 }, () => {
  it("refuses each malformed input with 422 and its field, records nothing, and the thread takes the next good run", async () => {
    const thread = await suite.client.threads.create();
    const bad: [unknown, string][] = [
      [{ messages: [{ role: "nobody", content: "hi" }] }, "input.messages[0].role"],
      [{ messages: 42 }, "input.messages"],
      [{ messages: [{ role: "user", content: 42 }] }, "input.messages[0].content"],
      [{ messages: [{ type: "human", content: [42] }] }, "input.messages[0].content[0]"],
      [{ messages: [null] }, "input.messages[0]"],
      [{ messages: [{ role: "tool", content: "x" }] }, "input.messages[0].role"],
      [{ messages: [{ type: "ai", content: "", tool_calls: 42 }] }, "input.messages[0].tool_calls"],
      [{ messagez: [{ role: "user", content: "hi" }] }, "input.messagez"],
      [42, "input"],
      [[{ role: "user", content: "hi" }], "input"],
    ];
    for (const [input, field] of bad) {
      for (const route of [`/threads/${thread.thread_id}/runs/wait`, `/threads/${thread.thread_id}/runs`, `/threads/${thread.thread_id}/runs/stream`, "/runs/wait"]) {
        expect({ route, input, ...(await post(route, { assistant_id: "lead_agent", input })) }).toEqual({ route, input, ...refused(field) });
      }
    }
    const command = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "lead_agent", command: { update: { messages: 42 } } });
    expect(command).toEqual(refused("command.update.messages"));
    const pairs = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "lead_agent", command: { update: [["messages", [{ role: "nobody", content: "x" }]]] } });
    expect(pairs).toEqual(refused("command.update.messages[0].role"));
    const reserved = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "hi" }] }, config: { configurable: { __pregel_send: "x" } } });
    expect(reserved).toEqual(refused("config.configurable.__pregel_send"));
    expect(await suite.client.runs.list(thread.thread_id)).toEqual([]);
    expect((await suite.client.threads.get(thread.thread_id)).status).toBe("idle");
    // The forms LangChain reads are taken: a role object, a type object, a string, a [role, content] pair.
    const good = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: { messages: [{ role: "user", content: "hello" }] } });
    expect((good as { messages: unknown[] }).messages).toHaveLength(2);
    for (const messages of ["hello", [["user", "hello"]], { type: "human", content: [{ type: "text", text: "hello" }] }]) {
      await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: { messages } });
    }
    expect((await suite.client.runs.list(thread.thread_id, { limit: 10 })).map((run) => run.status)).toEqual(["success", "success", "success", "success"]);
    expect((await suite.client.threads.getState(thread.thread_id)).values).toMatchObject({ messages: expect.any(Array) });
  });

  it("threads.updateState answers a client's mistakes with 422 and the reason, not 500", async () => {
    const thread = await suite.client.threads.create();
    await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: { messages: [{ role: "user", content: "hello" }] } });
    const path = `/threads/${thread.thread_id}/state`;
    expect(await post(path, { values: { messages: 42 } })).toEqual(refused("values.messages"));
    expect(await post(path, { values: { messages: [{ role: "nobody", content: "x" }] }, as_node: "model" })).toEqual(refused("values.messages[0].role"));
    expect(await post(path, { values: { unknown_key: 1 }, as_node: "model" })).toEqual(refused("values.unknown_key"));
    expect(await post(path, { values: 42 })).toEqual(refused("values"));
    const unknownNode = await post(path, { values: { messages: [{ role: "user", content: "x" }] }, as_node: "no_such_node" });
    expect(unknownNode).toEqual(refused("as_node"));
    expect(unknownNode.body.message).toContain("no_such_node");
    // A good update still works, and the thread's state reads.
    await suite.client.threads.updateState(thread.thread_id, { values: { messages: [{ role: "user", content: "by hand" }] }, asNode: "model" });
    expect((await suite.client.threads.getState(thread.thread_id)).values).toMatchObject({ messages: expect.arrayContaining([expect.objectContaining({ content: "by hand" })]) });
  });
});
