import crypto from "node:crypto";
import path from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverAccess } from "../owners/access.js";
import { openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import { ThreadService } from "../threads/thread-service.js";
import { graphRunExecutor, type StreamableGraph } from "./graph-run-executor.js";
import { KeptRunEvents } from "./kept-run-events.js";
import { RunManager } from "./run-manager.js";
import type { RunRequest } from "./run-request.js";

/**
 * graphRunExecutor over a real graph whose `task` tool invokes a compiled subgraph (a sub-agent's
 * shape: a model node of its own) with the tool's config, run through the run manager; the events
 * are read back from the kept log, as join and a re-attached stream read them.
 */
const temp = makeTempDir("tt-subgraphs-");
let store: AgentStore;
let runs: RunManager;

function leadGraph(checkpointer: BaseCheckpointSaver): StreamableGraph {
  const childModel = new FakeListChatModel({ responses: ["sub answer"] });
  const child = new StateGraph(MessagesAnnotation)
    .addNode("model", async (state, config) => ({ messages: [await childModel.invoke(state.messages, config)] }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile({ name: "sub_agent" });
  const task = tool(
    async ({ prompt }: { prompt: string }, config) => {
      const out = await child.invoke({ messages: [new HumanMessage(prompt)] }, config);
      return String(out.messages.at(-1)?.content);
    },
    { name: "task", description: "runs a sub-agent", schema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] } },
  );
  const leadModel = new FakeListChatModel({ responses: ["lead done"] });
  const callModel = async (state: { messages: BaseMessage[] }, config: object) => {
    if (state.messages.at(-1)?.getType() === "human") return { messages: [new AIMessage({ content: "", tool_calls: [{ id: "call_sub", name: "task", args: { prompt: "look it up" } }] })] };
    return { messages: [await leadModel.invoke(state.messages, config)] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode("model", callModel)
    .addNode("tools", new ToolNode([task]))
    .addEdge(START, "model")
    .addConditionalEdges("model", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addEdge("tools", "model")
    .compile({ checkpointer }) as unknown as StreamableGraph;
}

beforeEach(async () => {
  store = await openSqliteStore(path.join(temp.dir, `${crypto.randomUUID()}.sqlite`));
  const stateGraph = new StateGraph(MessagesAnnotation).addNode("model", () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: store.checkpointer });
  const clock = () => new Date();
  const threads = new ThreadService({ store, clock, stateGraph, threadMetadata: { graph_id: "graph" } });
  runs = new RunManager({
    store,
    threads,
    clock,
    execute: graphRunExecutor({ graphFor: async () => ({ graph: leadGraph(store.checkpointer), metadata: {} }) }),
    events: new KeptRunEvents({ retentionMs: 60_000, maxRuns: 100, maxBytes: 1e9 }),
    resolveAssistant: async (id) => ({ assistant_id: id, version: 1 }),
  });
});

afterEach(async () => {
  await runs.shutdown();
  await store.close();
});

/** Runs one turn on a new thread and returns its kept events (after the run ended). */
async function runTurn(extra: Partial<RunRequest>): Promise<{ event: string; data: unknown }[]> {
  const threadId = crypto.randomUUID();
  const request: RunRequest = { assistant_id: "graph", if_not_exists: "create", input: { messages: [{ role: "user", content: "delegate" }] }, ...extra };
  const { run } = await runs.create(threadId, request, { access: serverAccess });
  await runs.join(threadId, run.run_id, serverAccess);
  const events: { event: string; data: unknown }[] = [];
  for await (const { frame } of runs.events(run.run_id)?.follow() ?? []) {
    const [, event = "", data = ""] = /^id: \d+\nevent: (.*)\ndata: (.*)\n\n$/s.exec(frame) ?? [];
    events.push({ event, data: JSON.parse(data) });
  }
  return events;
}

const namespaceOf = (event: string) => event.split("|").slice(1);
const textOf = (data: unknown) => JSON.stringify(data);

describe("stream_subgraphs", () => {
  it("without it the lead's stream has no subgraph event and the same events as the root's with it", async () => {
    const modes: RunRequest["stream_mode"] = ["values", "updates", "messages-tuple", "custom", "tasks"];
    const plain = await runTurn({ stream_mode: modes });
    const off = await runTurn({ stream_mode: modes, stream_subgraphs: false });
    const on = await runTurn({ stream_mode: modes, stream_subgraphs: true });
    for (const events of [plain, off]) {
      expect(events.every((event) => !event.event.includes("|"))).toBe(true);
      // The sub-agent's own messages (its prompt, its tokens) never reach the lead's stream; its answer does, as the tool's result.
      expect(events.some((event) => textOf(event.data).includes("look it up") && event.event === "values")).toBe(true);
      expect(events.filter((event) => event.event === "messages").every((event) => !textOf(event.data).includes('"content":"s"'))).toBe(true);
    }
    const names = (events: { event: string }[]) => events.map((event) => event.event);
    expect(names(off)).toEqual(names(plain));
    expect(names(on).filter((name) => !name.includes("|"))).toEqual(names(plain));
  });

  it("with it each subgraph event is named <mode>|<namespace>, the namespace starting at the lead's tools task", async () => {
    const events = await runTurn({ stream_mode: ["values", "updates", "messages-tuple"], stream_subgraphs: true });
    const nested = events.filter((event) => event.event.includes("|"));
    expect(new Set(nested.map((event) => event.event.split("|")[0]))).toEqual(new Set(["values", "updates", "messages"]));
    for (const event of nested) expect(namespaceOf(event.event)[0]).toMatch(/^tools:[0-9a-f-]{36}$/);
    // One sub-agent: one namespace for all its events.
    expect(new Set(nested.map((event) => namespaceOf(event.event).join("|"))).size).toBe(1);
    // Its state starts with the delegated prompt and ends with its answer; its tokens stream as [chunk, metadata].
    const values = nested.filter((event) => event.event.startsWith("values|")).map((event) => event.data as { messages: { type: string; content: string }[] });
    expect(values[0]?.messages).toMatchObject([{ type: "human", content: "look it up" }]);
    expect(values.at(-1)?.messages.at(-1)).toMatchObject({ type: "ai", content: "sub answer" });
    const tokens = nested.filter((event) => event.event.startsWith("messages|")).map((event) => (event.data as [{ content: string }, unknown])[0].content);
    expect(tokens.join("")).toBe("sub answer");
    const updates = nested.filter((event) => event.event.startsWith("updates|")).map((event) => Object.keys(event.data as object));
    expect(updates).toEqual([["model"]]);
  });

  it("the older messages mode stays the lead's: no namespaced messages/* event and no sub-agent token in it", async () => {
    const events = await runTurn({ stream_mode: ["messages"], stream_subgraphs: true });
    expect(events.every((event) => !event.event.includes("|"))).toBe(true);
    const partials = events.filter((event) => event.event === "messages/partial").map((event) => (event.data as { type: string; content: string }[])[0]);
    const answers = partials.filter((message) => message?.type === "ai" && message.content !== "").map((message) => message?.content);
    // The lead's answer streams token by token; the sub-agent's ("sub answer") reaches it only as the task tool's result.
    expect(answers.at(-1)).toBe("lead done");
    expect(answers.every((content) => content?.startsWith("l"))).toBe(true);
    expect(partials.filter((message) => message?.type === "tool").map((message) => message?.content)).toEqual(["sub answer"]);
  });

  it("the events mode streams through streamEvents with the subgraphs' chunks under their namespaces as well", async () => {
    const events = await runTurn({ stream_mode: ["events", "values"], stream_subgraphs: true });
    expect(events.some((event) => event.event === "events")).toBe(true);
    const nested = events.filter((event) => event.event.startsWith("values|tools:"));
    expect(nested.length).toBeGreaterThan(0);
    expect(textOf(nested.at(-1)?.data)).toContain("sub answer");
    const withoutSubgraphs = await runTurn({ stream_mode: ["events", "values"] });
    expect(withoutSubgraphs.every((event) => !event.event.includes("|"))).toBe(true);
  });
});
