import crypto from "node:crypto";
import path from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../persistence/agent-records.js";
import { openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import { graphRunExecutor, type StreamableGraph } from "./graph-run-executor.js";
import type { RunRequest } from "./run-request.js";
import { supportedStreamModes } from "./stream-event-mapper.js";

/**
 * No stream event shows private keys: graphRunExecutor over a real graph whose `task` tool runs a
 * subgraph with the tool's config (which carries LangGraph's `__pregel_*` internals, callbacks and
 * this server's `__thinktank_run_work`), every stream mode at once, with and without subgraphs.
 */
const temp = makeTempDir("tt-public-chunks-");
let store: AgentStore;

function leadGraph(checkpointer: BaseCheckpointSaver): StreamableGraph {
  const child = new StateGraph(MessagesAnnotation)
    .addNode("model", async (state, config) => ({ messages: [await new FakeListChatModel({ responses: ["sub answer"] }).invoke(state.messages, config)] }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile({ name: "sub_agent" });
  const task = tool(async ({ prompt }: { prompt: string }, config) => String((await child.invoke({ messages: [new HumanMessage(prompt)] }, config)).messages.at(-1)?.content), {
    name: "task",
    description: "runs a sub-agent",
    schema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  });
  const callModel = async (state: { messages: BaseMessage[] }, config: object) => {
    if (state.messages.at(-1)?.getType() === "human") return { messages: [new AIMessage({ content: "", tool_calls: [{ id: "call_sub", name: "task", args: { prompt: "look it up" } }] })] };
    return { messages: [await new FakeListChatModel({ responses: ["lead done"] }).invoke(state.messages, config)] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode("model", callModel)
    .addNode("tools", new ToolNode([task]))
    .addEdge(START, "model")
    .addConditionalEdges("model", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addEdge("tools", "model")
    .compile({ checkpointer }) as unknown as StreamableGraph;
}

beforeAll(async () => {
  store = await openSqliteStore(path.join(temp.dir, `${crypto.randomUUID()}.sqlite`));
});
afterAll(async () => {
  await store.close();
});

async function events(request: Partial<RunRequest>): Promise<{ event: string; json: string }[]> {
  const execute = graphRunExecutor({ graphFor: async () => ({ graph: leadGraph(store.checkpointer), metadata: { graph_id: "graph" } }) });
  const now = new Date().toISOString();
  const run: RunRecord = { run_id: crypto.randomUUID(), thread_id: crypto.randomUUID(), assistant_id: "a", created_at: now, updated_at: now, status: "pending", metadata: {}, kwargs: {}, multitask_strategy: "reject", owner_id: "admin" };
  const emitted: { event: string; json: string }[] = [];
  const outcome = await execute(
    { run, request: { assistant_id: "a", input: { messages: [{ role: "user", content: "delegate" }] }, config: { configurable: { client_key: "mine", nested: { a: 1 } } }, ...request }, startedAt: new Date(), signal: new AbortController().signal },
    (event, json) => emitted.push({ event, json }),
  );
  expect(outcome.status).toBe("success");
  return emitted;
}

/** A private key anywhere in an event's JSON: `"__name":` (LangGraph's `__pregel_*`, the server's `__thinktank_*`), callbacks, a serialized object. */
const privateKey = /"__[A-Za-z]\w*":|"callbacks":|"thinktank_keep_blob_refs"|"lc":1|CallbackManager|"signal":/;

describe("stream events keep private keys out", () => {
  for (const subgraphs of [false, true]) {
    it(`every mode${subgraphs ? ", subgraphs streamed" : ""}: no private key in any event; the client's configurable and the checkpoint ids stay`, async () => {
      const emitted = await events({ stream_mode: [...supportedStreamModes], stream_subgraphs: subgraphs });
      const modes = new Set(emitted.map((each) => each.event.split("|")[0]));
      for (const mode of ["checkpoints", "debug", "tasks", "events", "values", "updates", "messages"]) expect(modes).toContain(mode);
      if (subgraphs) expect(emitted.some((each) => each.event.startsWith("checkpoints|tools:"))).toBe(true);
      const leaks = emitted.filter((each) => privateKey.test(each.json)).map((each) => `${each.event}: ${privateKey.exec(each.json)?.[0]}`);
      expect(leaks).toEqual([]);
      const checkpoint = JSON.parse(emitted.find((each) => each.event === "checkpoints")?.json ?? "{}") as { config: { configurable: Record<string, unknown> } };
      expect(checkpoint.config.configurable).toMatchObject({ client_key: "mine", nested: { a: 1 }, thread_id: expect.any(String), checkpoint_ns: "", checkpoint_id: expect.any(String) });
      const debug = emitted.filter((each) => each.event === "debug").map((each) => JSON.parse(each.json) as { type: string; payload: { config?: { configurable: Record<string, unknown> } } });
      expect(debug.find((each) => each.type === "checkpoint")?.payload.config?.configurable).toMatchObject({ client_key: "mine", checkpoint_id: expect.any(String) });
    });
  }
});
