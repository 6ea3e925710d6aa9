import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";

/**
 * Every method of the LangGraph SDK's `Client` (assistants, threads, runs, crons, store) against a
 * real agent server, each with its outcome asserted: what it answers, or the clear refusal (status
 * and code) of what this server leaves out. "every Client method has a case" fails as soon as an
 * SDK update brings a method with no case here, so a missing or half-done route shows up at once.
 *
 * One object of cases per family: to change a family, replace its object (or one case in it).
 * A case receives the suite (a client, the server's URL, helpers) and throws when the outcome is not
 * the expected one. A case that is a string is a method not covered yet (it.todo with the reason).
 */

const suite = useSuiteAgent();

type Family = "assistants" | "threads" | "runs" | "crons" | "store";
interface Conformance {
  readonly client: Client;
  readonly url: string;
  /** A new thread of this suite's caller, idle, with one finished run (human "hello", the scripted answer). */
  threadWithRun(): Promise<string>;
}
type Case = ((suite: Conformance) => Promise<void>) | string;
type Cases<F extends Family> = { readonly [M in MethodOf<F>]: Case };
/** The methods of one family of the Client (its class's own, not BaseClient's plumbing). */
type MethodOf<F extends Family> = {
  [K in keyof Client[F]]: Client[F][K] extends (...args: never[]) => unknown ? K : never;
}[keyof Client[F]] & string;

const human = (content: string) => ({ messages: [{ type: "human", content }] });
const lastMessage = (values: unknown) => (values as { messages: { type: string; content: unknown }[] }).messages.at(-1);

/** The SDK's HTTP error (`HTTP <status>: <body>`) as status and code: what a refusal is asserted by. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; code?: string; field?: string; message?: string }> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)?.slice(0, 300)}`);
    },
    (caught: unknown) => caught as { status?: number; message: string },
  );
  const match = /^HTTP (\d+): ([\s\S]*)$/.exec(error.message);
  if (!match) throw error;
  const body = JSON.parse(match[2] as string) as { code?: string; message?: string; details?: { field?: string } };
  return { status: Number(match[1]), code: body.code, message: body.message, ...(body.details?.field ? { field: body.details.field } : {}) };
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

// ---- assistants ----
const assistantCases: Cases<"assistants"> = {
  get: async ({ client }) => {
    expect(await client.assistants.get("lead_agent")).toMatchObject({ graph_id: "lead_agent" });
    expect(await refusal(client.assistants.get("no-such-assistant"))).toMatchObject({ status: 404, code: "ASSISTANT_NOT_FOUND" });
  },
  getGraph: async ({ client }) => {
    const graph = await client.assistants.getGraph("lead_agent");
    expect(graph.nodes.map((node) => node.id)).toEqual(expect.arrayContaining(["model", "tools"]));
  },
  getSchemas: async ({ client }) => {
    const schemas = await client.assistants.getSchemas("lead_agent");
    expect(schemas.graph_id).toBe("lead_agent");
    expect(Object.keys((schemas.input_schema as { properties: object }).properties)).toContain("messages");
  },
  getSubgraphs: async ({ client }) => expect(await client.assistants.getSubgraphs("lead_agent")).toEqual({}),
  create: async ({ client }) => {
    const created = await client.assistants.create({ graphId: "lead_agent", name: "mine", metadata: { case: "create" }, config: { configurable: { instructions: "Be brief." } } });
    expect(created).toMatchObject({ graph_id: "lead_agent", name: "mine", version: 1, config: { configurable: { instructions: "Be brief." } } });
    expect(await client.assistants.create({ graphId: "lead_agent", assistantId: created.assistant_id, ifExists: "do_nothing" })).toMatchObject({ assistant_id: created.assistant_id, version: 1 });
    expect(await refusal(client.assistants.create({ graphId: "lead_agent", assistantId: created.assistant_id }))).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(await refusal(client.assistants.create({ graphId: "lead_agent", context: { model: "no-such-model" } }))).toMatchObject({ status: 422, code: "INVALID_ASSISTANT", field: "context.model" });
    await client.assistants.delete(created.assistant_id);
  },
  update: async ({ client }) => {
    const created = await client.assistants.create({ graphId: "lead_agent", name: "before" });
    expect(await client.assistants.update(created.assistant_id, { name: "after" })).toMatchObject({ name: "after", version: 2 });
    expect(await refusal(client.assistants.update("lead_agent", { name: "renamed" }))).toMatchObject({ status: 403, code: "ASSISTANT_PROTECTED" });
    await client.assistants.delete(created.assistant_id);
  },
  delete: async ({ client }) => {
    const created = await client.assistants.create({ graphId: "lead_agent", name: "short-lived" });
    await client.assistants.delete(created.assistant_id);
    expect(await refusal(client.assistants.get(created.assistant_id))).toMatchObject({ status: 404, code: "ASSISTANT_NOT_FOUND" });
    expect(await refusal(client.assistants.delete("lead_agent"))).toMatchObject({ status: 403, code: "ASSISTANT_PROTECTED" });
  },
  search: async ({ client }) => {
    const created = await client.assistants.create({ graphId: "lead_agent", name: "findable", metadata: { case: "search" } });
    expect((await client.assistants.search({ graphId: "lead_agent" }))[0]?.assistant_id).toBe((await client.assistants.get("lead_agent")).assistant_id);
    expect((await client.assistants.search({ metadata: { case: "search" } })).map((each) => each.assistant_id)).toEqual([created.assistant_id]);
    expect(await client.assistants.search({ graphId: "another_graph" })).toEqual([]);
    await client.assistants.delete(created.assistant_id);
  },
  count: async ({ client }) => {
    expect(await client.assistants.count({ metadata: { case: "count" } })).toBe(0);
    const created = await client.assistants.create({ graphId: "lead_agent", metadata: { case: "count" } });
    expect(await client.assistants.count({ graphId: "lead_agent", metadata: { case: "count" } })).toBe(1);
    await client.assistants.delete(created.assistant_id);
  },
  getVersions: async ({ client }) => {
    expect((await client.assistants.getVersions("lead_agent")).map((each) => each.version)).toEqual([1]);
    const created = await client.assistants.create({ graphId: "lead_agent", name: "v1" });
    await client.assistants.update(created.assistant_id, { name: "v2" });
    expect((await client.assistants.getVersions(created.assistant_id)).map((each) => [each.version, each.name])).toEqual([
      [2, "v2"],
      [1, "v1"],
    ]);
    await client.assistants.delete(created.assistant_id);
  },
  setLatest: async ({ client }) => {
    expect(await client.assistants.setLatest("lead_agent", 1)).toMatchObject({ graph_id: "lead_agent" });
    const created = await client.assistants.create({ graphId: "lead_agent", name: "v1" });
    await client.assistants.update(created.assistant_id, { name: "v2" });
    expect(await client.assistants.setLatest(created.assistant_id, 1)).toMatchObject({ name: "v1", version: 1 });
    expect(await refusal(client.assistants.setLatest(created.assistant_id, 7))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    await client.assistants.delete(created.assistant_id);
  },
};

// ---- threads ----
const threadCases: Cases<"threads"> = {
  get: async ({ client }) => {
    const thread = await client.threads.create({ metadata: { case: "get" } });
    expect(await client.threads.get(thread.thread_id)).toMatchObject({ thread_id: thread.thread_id, status: "idle", metadata: { case: "get" } });
    expect(await refusal(client.threads.get("00000000-0000-4000-8000-000000000000"))).toMatchObject({ status: 404, code: "THREAD_NOT_FOUND" });
    expect(await refusal(client.threads.get(thread.thread_id, { include: ["ttl"] }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "include" });
  },
  create: async ({ client }) => {
    const thread = await client.threads.create({ metadata: { case: "create" } });
    expect(thread).toMatchObject({ status: "idle", metadata: { case: "create", graph_id: "lead_agent" } });
    expect(await refusal(client.threads.create({ threadId: thread.thread_id }))).toMatchObject({ status: 409, code: "CONFLICT" });
    expect((await client.threads.create({ threadId: thread.thread_id, ifExists: "do_nothing" })).thread_id).toBe(thread.thread_id);
    // supersteps: the new thread's first states, one checkpoint each.
    const seeded = await client.threads.create({ supersteps: [{ updates: [{ values: human("seeded"), asNode: "model" }] }, { updates: [{ values: { messages: [{ type: "ai", content: "seeded answer" }] }, asNode: "model" }] }] });
    expect((seeded.values as { messages: { content: string }[] }).messages.map((message) => message.content)).toEqual(["seeded", "seeded answer"]);
    expect(await client.threads.getHistory(seeded.thread_id)).toHaveLength(2);
    const tag = crypto.randomUUID();
    expect(await refusal(client.threads.create({ metadata: { tag }, supersteps: [{ updates: [{ values: { messages: 42 }, asNode: "model" }] }] }))).toMatchObject({ status: 422, code: "INVALID_STATE_INPUT", field: "supersteps[0].updates[0].values.messages" });
    expect(await refusal(client.threads.create({ metadata: { tag }, supersteps: [{ updates: [{ values: human("x"), asNode: "no_such_node" }] }] }))).toMatchObject({ status: 422, code: "INVALID_STATE_INPUT" });
    expect(await client.threads.count({ metadata: { tag } })).toBe(0);
    expect(await refusal(client.threads.create({ ttl: 60 }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "ttl" });
  },
  copy: async ({ client, threadWithRun }) => {
    const source = await threadWithRun();
    const copy = await client.threads.copy(source);
    expect(copy.thread_id).not.toBe(source);
    expect((await client.threads.getState(copy.thread_id)).values).toEqual((await client.threads.getState(source)).values);
  },
  update: async ({ client }) => {
    const thread = await client.threads.create({ metadata: { a: 1 } });
    expect((await client.threads.update(thread.thread_id, { metadata: { b: 2 } })).metadata).toMatchObject({ a: 1, b: 2 });
    expect(await client.threads.update(thread.thread_id, { metadata: { c: 3 }, returnMinimal: true })).toBeUndefined();
    expect((await client.threads.get(thread.thread_id)).metadata).toMatchObject({ a: 1, b: 2, c: 3 });
    expect(await refusal(client.threads.update(thread.thread_id, { ttl: 60 }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "ttl" });
  },
  delete: async ({ client }) => {
    const thread = await client.threads.create();
    await client.threads.delete(thread.thread_id);
    expect(await refusal(client.threads.get(thread.thread_id))).toMatchObject({ status: 404, code: "THREAD_NOT_FOUND" });
  },
  prune: async ({ client }) => {
    const [a, b] = [await client.threads.create(), await client.threads.create()];
    expect(await client.threads.prune([a.thread_id, b.thread_id])).toEqual({ pruned_count: 2 });
    expect(await refusal(client.threads.get(a.thread_id))).toMatchObject({ status: 404 });
  },
  search: async ({ client }) => {
    const tag = crypto.randomUUID();
    const thread = await client.threads.create({ metadata: { tag } });
    expect((await client.threads.search({ metadata: { tag } })).map((each) => each.thread_id)).toEqual([thread.thread_id]);
    // select: only those fields.
    expect(await client.threads.search({ metadata: { tag }, select: ["thread_id", "status"] })).toEqual([{ thread_id: thread.thread_id, status: "idle" }]);
    expect(await refusal(client.threads.search({ select: ["no_such_field" as "thread_id"] }))).toMatchObject({ status: 400, code: "VALIDATION_FAILED", field: "select" });
    expect(await refusal(client.threads.search({ extract: { last: "values.messages[-1]" } }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "extract" });
  },
  count: async ({ client }) => {
    const tag = crypto.randomUUID();
    await client.threads.create({ metadata: { tag } });
    await client.threads.create({ metadata: { tag } });
    expect(await client.threads.count({ metadata: { tag } })).toBe(2);
  },
  getState: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    const state = await client.threads.getState(threadId);
    expect(lastMessage(state.values)).toMatchObject({ type: "ai" });
    const checkpointId = state.checkpoint.checkpoint_id as string;
    expect((await client.threads.getState(threadId, checkpointId)).checkpoint.checkpoint_id).toBe(checkpointId);
    expect((await client.threads.getState(threadId, { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId, checkpoint_map: null })).checkpoint.checkpoint_id).toBe(checkpointId);
    // select: fields, or one key of the values.
    const selected = await client.threads.getState(threadId, undefined, { select: ["values.messages", "next"] });
    expect(Object.keys(selected).sort()).toEqual(["next", "values"]);
    expect(Object.keys(selected.values as object)).toEqual(["messages"]);
    expect(Object.keys(await client.threads.getState(threadId, checkpointId, { select: ["checkpoint"] }))).toEqual(["checkpoint"]);
    expect(await refusal(client.threads.getState(threadId, undefined, { subgraphs: true }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "subgraphs" });
  },
  updateState: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    // The server answers LangGraph's { checkpoint } (the SDK's type says { configurable }).
    const answer = (await client.threads.updateState(threadId, { values: human("added by hand"), asNode: "model" })) as unknown as { checkpoint: { checkpoint_id: string } };
    expect(answer.checkpoint.checkpoint_id).toEqual(expect.any(String));
    expect(lastMessage((await client.threads.getState(threadId)).values)).toMatchObject({ type: "human", content: "added by hand" });
    // A client's mistakes: 422 with the reason, not 500.
    expect(await refusal(client.threads.updateState(threadId, { values: { messages: 42 } }))).toMatchObject({ status: 422, code: "INVALID_STATE_INPUT", field: "values.messages" });
    expect(await refusal(client.threads.updateState(threadId, { values: human("x"), asNode: "no_such_node" }))).toMatchObject({ status: 422, code: "INVALID_STATE_INPUT", field: "as_node" });
  },
  patchState: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    const before = await client.threads.getState(threadId);
    await client.threads.patchState(threadId, { reviewed: true });
    const after = await client.threads.getState(threadId);
    // The latest checkpoint's metadata, in place: same checkpoint, same values.
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    expect(after.metadata).toMatchObject({ ...before.metadata, reviewed: true });
    expect(after.values).toEqual(before.values);
    await client.threads.patchState({ configurable: { thread_id: threadId } }, { second: 2 });
    expect((await client.threads.getState(threadId)).metadata).toMatchObject({ reviewed: true, second: 2 });
    const empty = await client.threads.create();
    expect(await refusal(client.threads.patchState(empty.thread_id, { a: 1 }))).toMatchObject({ status: 404, code: "NOT_FOUND" });
  },
  getHistory: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    const history = await client.threads.getHistory(threadId, { limit: 2 });
    expect(history).toHaveLength(2);
    expect(lastMessage(history[0]?.values)).toMatchObject({ type: "ai" });
    const selected = await client.threads.getHistory(threadId, { limit: 2, select: ["checkpoint"] });
    expect(selected.map((state) => Object.keys(state))).toEqual([["checkpoint"], ["checkpoint"]]);
  },
  joinStream: async ({ client, threadWithRun }) => {
    // Nothing running on the thread: the stream ends at once.
    const threadId = await threadWithRun();
    expect(await collect(client.threads.joinStream(threadId))).toEqual([]);
  },
  // The SDK's v2 thread protocol is not served: its requests answer 501 NOT_IMPLEMENTED (a client tells "not here" from a typo).
  stream: async ({ client, url }) => {
    const thread = await client.threads.create();
    expect(typeof client.threads.stream).toBe("function");
    for (const path of [`/threads/${thread.thread_id}/commands`, `/threads/${thread.thread_id}/stream/events`]) {
      const answer = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect({ path, status: answer.status, code: ((await answer.json()) as { code: string }).code }).toEqual({ path, status: 501, code: "NOT_IMPLEMENTED" });
    }
  },
};

// ---- runs ----
const runCases: Cases<"runs"> = {
  stream: async ({ client }) => {
    const thread = await client.threads.create();
    const parts = await collect(client.runs.stream(thread.thread_id, "lead_agent", { input: human("hello"), streamMode: ["values"] }));
    expect(parts[0]?.event).toBe("metadata");
    expect(lastMessage(parts.at(-1)?.data)).toMatchObject({ type: "ai", content: "Hello from the script. You said: hello" });
    // Stateless: a temporary thread.
    const stateless = await collect(client.runs.stream(null, "lead_agent", { input: human("hello") }));
    expect(lastMessage(stateless.at(-1)?.data)).toMatchObject({ type: "ai" });
    // Malformed input is refused before anything runs.
    await expect(collect(client.runs.stream(thread.thread_id, "lead_agent", { input: { messages: [{ role: "nobody", content: "x" }] } }))).rejects.toThrow(/HTTP 422.*INVALID_STATE_INPUT/);
    await expect(collect(client.runs.stream(thread.thread_id, "lead_agent", { input: human("x"), streamNamespaces: ["tools"] }))).rejects.toThrow(/HTTP 422.*UNSUPPORTED_FIELD/);
  },
  create: async ({ client }) => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", { input: human("hello") });
    expect(run).toMatchObject({ thread_id: thread.thread_id, status: "pending" });
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    // What this server does not do is refused, not ignored.
    expect(await refusal(client.runs.create(thread.thread_id, "lead_agent", { input: human("hello"), webhook: "https://example.com/hook" }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "webhook" });
    expect(await refusal(client.runs.create(thread.thread_id, "lead_agent", { input: { messages: 42 } as never }))).toMatchObject({ status: 422, code: "INVALID_STATE_INPUT", field: "input.messages" });
    expect((await client.runs.list(thread.thread_id)).length).toBe(1);
  },
  createBatch: async ({ client }) => {
    const created = await client.runs.createBatch([
      // The SDK types onCompletion as "complete" | "continue"; the API's values are delete and keep.
      { assistantId: "lead_agent", input: human("one"), onCompletion: "keep" as never, streamMode: ["values"] },
      { assistantId: "lead_agent", input: human("two"), onCompletion: "keep" as never },
    ]);
    expect(created).toHaveLength(2);
    for (const run of created) {
      expect(lastMessage(await client.runs.join(run.thread_id, run.run_id))).toMatchObject({ type: "ai" });
      expect((await client.runs.get(run.thread_id, run.run_id)).status).toBe("success");
    }
    expect(new Set(created.map((run) => run.thread_id)).size).toBe(2);
    // One bad payload refuses the batch before any run is created.
    const tag = crypto.randomUUID();
    const refused = await refusal(client.runs.createBatch([{ assistantId: "lead_agent", input: human("ok"), metadata: { tag } }, { assistantId: "lead_agent", input: { messages: 42 } as never, metadata: { tag } }]));
    expect(refused).toMatchObject({ status: 422, code: "INVALID_STATE_INPUT", field: "[1].input.messages" });
    expect(await client.threads.count({ metadata: { tag } })).toBe(0);
    expect(await refusal(client.runs.createBatch([{ assistantId: "lead_agent", input: human("ok"), notAField: 1 } as never]))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "[0].notAField" });
  },
  wait: async ({ client }) => {
    const thread = await client.threads.create();
    expect(lastMessage(await client.runs.wait(thread.thread_id, "lead_agent", { input: human("hello") }))).toMatchObject({ type: "ai" });
    expect(lastMessage(await client.runs.wait(null, "lead_agent", { input: human("hello") }))).toMatchObject({ type: "ai" });
  },
  list: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    const runs = await client.runs.list(threadId);
    expect(runs.map((run) => run.status)).toEqual(["success"]);
    expect(await client.runs.list(threadId, { select: ["run_id", "status"] })).toEqual([{ run_id: runs[0]?.run_id, status: "success" }]);
    expect(await refusal(client.runs.list(threadId, { select: ["no_such_field" as "run_id"] }))).toMatchObject({ status: 400, code: "VALIDATION_FAILED", field: "select" });
  },
  get: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    const [run] = await client.runs.list(threadId);
    expect(await client.runs.get(threadId, run!.run_id)).toMatchObject({ run_id: run!.run_id, status: "success" });
    expect(await refusal(client.runs.get(threadId, "00000000-0000-4000-8000-000000000000"))).toMatchObject({ status: 404, code: "RUN_NOT_FOUND" });
  },
  cancel: async ({ client }) => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", { input: human("hello"), afterSeconds: 60 });
    expect(await refusal(client.runs.cancel(thread.thread_id, run.run_id, false, "interrupt", { reason: "taken" }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "reason" });
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  },
  cancelMany: async ({ client }) => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", { input: human("hello"), afterSeconds: 60 });
    await client.runs.cancelMany({ threadId: thread.thread_id, runIds: [run.run_id] });
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    // By status alone, without a thread: every pending run the caller has.
    const [a, b] = [await client.threads.create(), await client.threads.create()];
    const waiting = [await client.runs.create(a.thread_id, "lead_agent", { input: human("hello"), afterSeconds: 60 }), await client.runs.create(b.thread_id, "lead_agent", { input: human("hello"), afterSeconds: 60 })];
    await client.runs.cancelMany({ status: "pending" });
    for (const each of waiting) {
      await client.runs.join(each.thread_id, each.run_id);
      expect((await client.runs.get(each.thread_id, each.run_id)).status).toBe("interrupted");
    }
    expect(await refusal(client.runs.cancelMany({}))).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
  },
  join: async ({ client }) => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", { input: human("hello") });
    expect(lastMessage(await client.runs.join(thread.thread_id, run.run_id))).toMatchObject({ type: "ai" });
  },
  joinStream: async ({ client }) => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "lead_agent", { input: human("hello"), streamMode: ["values"] });
    const parts = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(lastMessage(parts.at(-1)?.data)).toMatchObject({ type: "ai" });
    // Without the thread: by run id alone.
    expect((await collect(client.runs.joinStream(null, run.run_id))).at(-1)?.event).toBe("values");
    // A joined stream has its run's modes: asking for others is refused, not ignored.
    await expect(collect(client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: ["updates"] }))).rejects.toThrow(/HTTP 422.*UNSUPPORTED_FIELD/);
  },
  delete: async ({ client, threadWithRun }) => {
    const threadId = await threadWithRun();
    const [run] = await client.runs.list(threadId);
    await client.runs.delete(threadId, run!.run_id);
    expect(await client.runs.list(threadId)).toEqual([]);
  },
};

// ---- crons (schedules here fire hours apart: apps/agent/test/crons*.test.ts watch them fire) ----
const cronCases: Cases<"crons"> = {
  createForThread: async ({ client }) => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 8 * * 1-5", timezone: "Europe/Berlin", input: human("summarise my inbox"), metadata: { kind: "inbox" } });
    expect(cron).toMatchObject({ thread_id: thread.thread_id, schedule: "0 8 * * 1-5", timezone: "Europe/Berlin", enabled: true, metadata: { kind: "inbox" }, payload: { input: human("summarise my inbox") } });
    expect(Date.parse(cron.next_run_date)).toBeGreaterThan(Date.now());
    expect(await refusal(client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "every weekday" }))).toMatchObject({ status: 422, code: "INVALID_CRON", field: "schedule" });
    expect(await refusal(client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "* * * * * *" }))).toMatchObject({ status: 422, code: "INVALID_CRON", field: "schedule" });
    expect(await refusal(client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 8 * * *", timezone: "Mars/Olympus" }))).toMatchObject({ status: 422, code: "INVALID_CRON", field: "timezone" });
    expect(await refusal(client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 8 * * *", webhook: "https://example.com/hook" }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "webhook" });
    expect(await refusal(client.crons.createForThread("00000000-0000-4000-8000-000000000000", "lead_agent", { schedule: "0 8 * * *" }))).toMatchObject({ status: 404, code: "THREAD_NOT_FOUND" });
    await client.crons.delete(cron.cron_id);
  },
  create: async ({ client }) => {
    const cron = await client.crons.create("lead_agent", { schedule: "30 7 * * *", onRunCompleted: "keep", endTime: "2999-01-01T00:00:00Z" });
    expect(cron).toMatchObject({ thread_id: null, on_run_completed: "keep", end_time: "2999-01-01T00:00:00.000Z", schedule: "30 7 * * *" });
    expect(await refusal(client.crons.create("no-such-assistant", { schedule: "30 7 * * *" }))).toMatchObject({ status: 404, code: "ASSISTANT_NOT_FOUND" });
    await client.crons.delete(cron.cron_id);
  },
  update: async ({ client }) => {
    const cron = await client.crons.create("lead_agent", { schedule: "0 6 * * *" });
    const updated = await client.crons.update(cron.cron_id, { schedule: "0 9 * * *", enabled: false, metadata: { moved: true } });
    expect(updated).toMatchObject({ cron_id: cron.cron_id, schedule: "0 9 * * *", enabled: false, next_run_date: null, metadata: { moved: true } });
    expect((await client.crons.update(cron.cron_id, { enabled: true })).next_run_date).toEqual(expect.any(String));
    expect(await refusal(client.crons.update(cron.cron_id, { schedule: "*/5 * * * * *" }))).toMatchObject({ status: 422, code: "INVALID_CRON", field: "schedule" });
    expect(await refusal(client.crons.update("00000000-0000-4000-8000-000000000000", { schedule: "0 9 * * *" }))).toMatchObject({ status: 404, code: "CRON_NOT_FOUND" });
    await client.crons.delete(cron.cron_id);
  },
  delete: async ({ client }) => {
    const cron = await client.crons.create("lead_agent", { schedule: "0 5 * * *" });
    await client.crons.delete(cron.cron_id);
    expect(await refusal(client.crons.delete(cron.cron_id))).toMatchObject({ status: 404, code: "CRON_NOT_FOUND" });
  },
  search: async ({ client }) => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 4 * * *", metadata: { find: "me" } });
    expect((await client.crons.search({ threadId: thread.thread_id })).map((each) => each.cron_id)).toEqual([cron.cron_id]);
    expect(await client.crons.search({ metadata: { find: "me" }, select: ["cron_id", "schedule"] })).toEqual([{ cron_id: cron.cron_id, schedule: "0 4 * * *" }]);
    expect(await client.crons.search({ metadata: { find: "nobody" } })).toEqual([]);
    await client.crons.delete(cron.cron_id);
  },
  count: async ({ client }) => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 3 * * *" });
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);
    await client.crons.delete(cron.cron_id);
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(0);
  },
};

// ---- store ----
const storeCases: Cases<"store"> = {
  putItem: async ({ client }) => {
    await client.store.putItem(["conformance", "put"], "k", { a: 1 });
    expect(await client.store.getItem(["conformance", "put"], "k")).toMatchObject({ key: "k", value: { a: 1 } });
    await client.store.putItem(["conformance", "put"], "unindexed", { a: 2 }, { index: false, ttl: 60 });
    expect(await refusal(client.store.putItem(["conformance", "put"], "indexed", { a: 3 }, { index: ["a"] }))).toMatchObject({ status: 422, code: "UNSUPPORTED_FIELD", field: "index" });
    expect(await client.store.getItem(["conformance", "put"], "indexed")).toBeNull();
  },
  getItem: async ({ client }) => {
    await client.store.putItem(["conformance", "get"], "k", { b: 2 });
    expect(await client.store.getItem(["conformance", "get"], "k")).toMatchObject({ namespace: ["conformance", "get"], key: "k", value: { b: 2 } });
    expect(await client.store.getItem(["conformance", "get"], "missing")).toBeNull();
  },
  deleteItem: async ({ client }) => {
    await client.store.putItem(["conformance", "delete"], "k", { c: 3 });
    await client.store.deleteItem(["conformance", "delete"], "k");
    expect(await client.store.getItem(["conformance", "delete"], "k")).toBeNull();
  },
  searchItems: async ({ client }) => {
    await client.store.putItem(["conformance", "search"], "one", { colour: "red" });
    await client.store.putItem(["conformance", "search"], "two", { colour: "blue" });
    const { items } = await client.store.searchItems(["conformance", "search"], { filter: { colour: "blue" } });
    expect(items.map((item) => item.key)).toEqual(["two"]);
  },
  listNamespaces: async ({ client }) => {
    await client.store.putItem(["conformance", "listed"], "k", {});
    const { namespaces } = await client.store.listNamespaces({ prefix: ["conformance"], maxDepth: 2 });
    expect(namespaces).toContainEqual(["conformance", "listed"]);
  },
};

const cases: { readonly [F in Family]: Cases<F> } = { assistants: assistantCases, threads: threadCases, runs: runCases, crons: cronCases, store: storeCases };

/** The methods the Client really has, read from its objects (an SDK update shows up here, not in the types). */
function clientMethods(client: Client, family: Family): string[] {
  return Object.getOwnPropertyNames(Object.getPrototypeOf(client[family]))
    .filter((name) => name !== "constructor" && typeof (client[family] as unknown as Record<string, unknown>)[name] === "function")
    .sort();
}

const conformance: Conformance = {
  get client() {
    return suite.client;
  },
  get url() {
    return suite.agent.url;
  },
  async threadWithRun() {
    const thread = await suite.client.threads.create();
    await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("hello") });
    return thread.thread_id;
  },
};

describe("the LangGraph SDK's Client against the agent server", { timeout: 60_000 }, () => {
  it("every Client method has a case (a new SDK method fails here until it has one)", () => {
    const client = new Client({ apiUrl: "http://127.0.0.1:1" });
    for (const family of Object.keys(cases) as Family[]) {
      expect({ family, methods: clientMethods(client, family) }).toEqual({ family, methods: Object.keys(cases[family]).sort() });
    }
  });

  for (const family of Object.keys(cases) as Family[]) {
    describe(family, () => {
      for (const [method, run] of Object.entries(cases[family] as Record<string, Case>)) {
        if (typeof run === "string") it.todo(`${family}.${method}: ${run}`);
        else it(`${family}.${method}`, () => run(conformance));
      }
    });
  }
});
