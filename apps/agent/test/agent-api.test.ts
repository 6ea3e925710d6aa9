import http from "node:http";
import { describe, expect, it } from "vitest";
import { useSuiteAgent } from "./support/suite-agent.js";

const suite = useSuiteAgent();

type Message = { type: string; content: unknown; tool_calls?: { name: string; args: Record<string, unknown>; id: string }[]; tool_call_id?: string };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const lastMessage = (values: unknown): Message => ((values as { messages: Message[] }).messages.at(-1) as Message);

async function collect(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<{ event: string; data: unknown }[]> {
  const parts: { event: string; data: unknown }[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

async function rawRequest(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${suite.agent.url}${path}`, { ...init, headers: { "content-type": "application/json", ...init.headers } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("agent server over the LangGraph SDK", { timeout: 60_000 }, () => {
  it("serves graph lead_agent as an assistant, by graph id and by assistant id", async () => {
    const [assistant] = await suite.client.assistants.search({ graphId: "lead_agent" });
    expect(assistant?.graph_id).toBe("lead_agent");
    const byId = await suite.client.assistants.get(assistant!.assistant_id);
    expect(byId.assistant_id).toBe(assistant!.assistant_id);
    expect((await suite.client.assistants.get("lead_agent")).assistant_id).toBe(assistant!.assistant_id);
    const schemas = await suite.client.assistants.getSchemas("lead_agent");
    expect(Object.keys((schemas.state_schema as { properties: object }).properties)).toEqual(["messages", "activeSkill", "artifacts"]);
    const graph = await suite.client.assistants.getGraph("lead_agent");
    expect(graph.nodes.map((node) => node.id)).toEqual(expect.arrayContaining(["model", "tools"]));
  });

  it("answers a run with wait, and keeps the conversation on the thread", async () => {
    const thread = await suite.client.threads.create({ metadata: { owner: "wait-test" } });
    const values = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("hello there") });
    expect(lastMessage(values)).toMatchObject({ type: "ai", content: "Hello from the script. You said: hello there" });
    const second = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("what did I say") });
    expect(lastMessage(second).content).toBe("You are on step 0; the last thing you said was: what did I say");
    const state = await suite.client.threads.getState(thread.thread_id);
    expect((state.values as { messages: Message[] }).messages.map((m) => m.type)).toEqual(["human", "ai", "human", "ai"]);
    const found = await suite.client.threads.search({ metadata: { owner: "wait-test", graph_id: "lead_agent" } });
    expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect(found[0]?.status).toBe("idle");
  });

  it("streams values, updates and messages-tuple events in order through a tool call round trip", async () => {
    const thread = await suite.client.threads.create();
    const parts = await collect(
      suite.client.runs.stream(thread.thread_id, "lead_agent", { input: human("read /mnt/skills/public/notes/SKILL.md"), streamMode: ["values", "updates", "messages-tuple"] }),
    );
    expect(parts[0]?.event).toBe("metadata");
    const updates = parts.filter((p) => p.event === "updates").map((p) => Object.keys(p.data as object)[0]);
    expect(updates).toEqual(["model", "tools", "model"]);
    // The tool call carries an id and the tool result answers that id.
    const toolUpdate = parts.find((p) => p.event === "updates" && "tools" in (p.data as object))?.data as { tools: { messages: Message[] } };
    const callUpdate = parts.find((p) => p.event === "updates" && "model" in (p.data as object))?.data as { model: { messages: Message[] } };
    const call = callUpdate.model.messages[0]?.tool_calls?.[0];
    expect(call).toMatchObject({ name: "read_file", args: { path: "/mnt/skills/public/notes/SKILL.md" } });
    expect(toolUpdate.tools.messages[0]?.tool_call_id).toBe(call?.id);
    // Events arrive in order: the model's update before the tool's, the final values last.
    const order = parts.map((p) => p.event);
    expect(order.indexOf("messages")).toBeGreaterThan(0);
    expect(order.at(-1)).toBe("values");
    const final = lastMessage(parts.at(-1)?.data);
    expect(final.content).toContain("The secret word is pelican.");
    // The streamed message chunks of the final answer add up to its text.
    const finalChunks = parts
      .filter((p) => p.event === "messages")
      .map((p) => (p.data as [Message & { id: string }, unknown])[0])
      .filter((m) => m.type === "ai" && typeof m.content === "string");
    const lastId = finalChunks.at(-1)?.id;
    expect(finalChunks.filter((m) => m.id === lastId).map((m) => m.content).join("")).toBe(final.content);
  });

  it("streams the older messages mode as metadata, partial and complete events", async () => {
    const thread = await suite.client.threads.create();
    const parts = await collect(suite.client.runs.stream(thread.thread_id, "lead_agent", { input: human("hi"), streamMode: "messages" }));
    const events = parts.map((p) => p.event);
    expect(events[0]).toBe("metadata");
    expect(events).toContain("messages/metadata");
    expect(events).toContain("messages/partial");
    const partials = parts.filter((p) => p.event === "messages/partial").map((p) => (p.data as Message[])[0]?.content);
    expect(partials.at(-1)).toBe("Hello from the script. You said: hi");
    const completed = parts.filter((p) => p.event === "messages/complete").flatMap((p) => p.data as Message[]);
    expect(completed.map((m) => m.type)).toEqual(["human", "ai"]);
    expect(events).not.toContain("values");
  });

  it("interrupts on request_human_input and resumes with the user's answer", async () => {
    const thread = await suite.client.threads.create();
    const paused = (await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("ask me") })) as Record<string, unknown>;
    expect(paused.__interrupt__).toEqual([expect.objectContaining({ value: expect.objectContaining({ question: "Which colour?" }) })]);
    const threadRecord = await suite.client.threads.get(thread.thread_id);
    expect(threadRecord.status).toBe("interrupted");
    expect(Object.values(threadRecord.interrupts).flat()[0]).toMatchObject({ value: { question: "Which colour?" } });
    const state = await suite.client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["tools"]);
    const parts = await collect(suite.client.runs.stream(thread.thread_id, "lead_agent", { command: { resume: "teal" }, streamMode: "values" }));
    expect(lastMessage(parts.at(-1)?.data).content).toBe("Your colour is teal.");
    expect((await suite.client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("asks in LangChain's human-in-the-loop shape and takes agent-chat-ui's answers", async () => {
    // What agent-chat-ui reads (interrupt.value.action_requests / review_configs) and sends back
    // (command.resume = { decisions: [decision] }, edited_action's args holding the answer).
    const ask = async () => {
      const thread = await suite.client.threads.create();
      const paused = (await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("ask me") })) as { __interrupt__: { value: Record<string, unknown> }[] };
      return { threadId: thread.thread_id, value: paused.__interrupt__[0]?.value };
    };
    const resume = async (threadId: string, answer: unknown) => {
      const parts = await collect(suite.client.runs.stream(threadId, "lead_agent", { command: { resume: answer }, streamMode: "values" }));
      return lastMessage(parts.at(-1)?.data).content;
    };

    const edit = await ask();
    expect(edit.value).toEqual({
      question: "Which colour?",
      action_requests: [{ name: "request_human_input", args: { question: "Which colour?", answer: "" }, description: "Which colour?" }],
      review_configs: [{ action_name: "request_human_input", allowed_decisions: ["approve", "edit", "reject"] }],
    });
    const editedAction = { name: "request_human_input", args: { question: "Which colour?", answer: "teal" } };
    expect(await resume(edit.threadId, { decisions: [{ type: "edit", edited_action: editedAction }] })).toBe("Your colour is teal.");
    expect((await suite.client.threads.get(edit.threadId)).status).toBe("idle");

    const reject = await ask();
    expect(await resume(reject.threadId, { decisions: [{ type: "reject", message: "I have no favourite" }] })).toBe("Your colour is The user declined to answer: I have no favourite.");
    const approve = await ask();
    expect(await resume(approve.threadId, { decisions: [{ type: "approve" }] })).toBe("Your colour is The user approved, without a written answer..");
    // The SDK's useStream sends both spellings of the edited action; the older agent-inbox list still works.
    const camel = await ask();
    expect(await resume(camel.threadId, { decisions: [{ type: "edit", edited_action: editedAction, editedAction }] })).toBe("Your colour is teal.");
    const inbox = await ask();
    expect(await resume(inbox.threadId, [{ type: "response", args: "amber" }])).toBe("Your colour is amber.");
  });

  it("creates background runs, joins them, lists and gets them", async () => {
    const thread = await suite.client.threads.create();
    const run = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human("background job") });
    expect(run.status).toBe("pending");
    const joined = await suite.client.runs.join(thread.thread_id, run.run_id);
    expect(lastMessage(joined).content).toBe("Hello from the script. You said: background job");
    const fetched = await suite.client.runs.get(thread.thread_id, run.run_id);
    expect(fetched.status).toBe("success");
    const listed = await suite.client.runs.list(thread.thread_id);
    expect(listed.map((r) => r.run_id)).toEqual([run.run_id]);
    // A finished run's events can still be joined as a stream.
    const replay = await collect(suite.client.runs.joinStream(thread.thread_id, run.run_id));
    expect(replay[0]?.event).toBe("metadata");
  });

  it("rejects a second run on a busy thread, and enqueues it when asked", async () => {
    const thread = await suite.client.threads.create();
    const first = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human("one"), afterSeconds: 1 });
    const busy = await rawRequest(`/threads/${thread.thread_id}/runs`, { method: "POST", body: JSON.stringify({ assistant_id: "lead_agent", input: human("two") }) });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe("THREAD_BUSY");
    const second = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human("two"), multitaskStrategy: "enqueue" });
    await suite.client.runs.join(thread.thread_id, second.run_id);
    const messages = (await suite.client.threads.getState(thread.thread_id)).values as { messages: Message[] };
    expect(messages.messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual(["one", "two"]);
    expect((await suite.client.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
    // Two requests at the same moment: exactly one gets the thread.
    const racing = await Promise.allSettled([1, 2].map((n) => suite.client.runs.create(thread.thread_id, "lead_agent", { input: human(`race ${n}`), afterSeconds: 1 })));
    expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const winner = racing.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ run_id: string }>;
    await suite.client.runs.join(thread.thread_id, winner.value.run_id);
  });

  it("cancels a pending run", async () => {
    const thread = await suite.client.threads.create();
    const run = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human("slow"), afterSeconds: 2 });
    await suite.client.runs.cancel(thread.thread_id, run.run_id, true);
    expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    expect((await suite.client.threads.getState(thread.thread_id)).values).toEqual({});
  });

  it("streams LangChain's events (streamMode events), alone or beside values", async () => {
    const thread = await suite.client.threads.create();
    const alone = await collect(suite.client.runs.stream(thread.thread_id, "lead_agent", { input: human("read /mnt/skills/public/notes/SKILL.md"), streamMode: "events" }));
    expect(alone[0]?.event).toBe("metadata");
    const events = alone.filter((part) => part.event === "events").map((part) => part.data as { event: string; name: string; run_id: string; data: Record<string, unknown> });
    expect(alone.filter((part) => !["metadata", "events"].includes(part.event))).toEqual([]);
    const kinds = events.map((event) => `${event.event} ${event.name}`);
    expect(kinds).toEqual(expect.arrayContaining(["on_chain_start lead_agent", "on_chat_model_start ScriptedChatModel", "on_chat_model_stream ScriptedChatModel", "on_tool_start read_file", "on_tool_end read_file", "on_chain_end lead_agent"]));
    expect(kinds.indexOf("on_tool_start read_file")).toBeLessThan(kinds.indexOf("on_tool_end read_file"));
    expect(JSON.stringify(events.find((event) => event.event === "on_tool_end")?.data)).toContain("pelican");

    const both = await collect(suite.client.runs.stream(thread.thread_id, "lead_agent", { input: human("what did I say"), streamMode: ["events", "values"] }));
    expect(both.some((part) => part.event === "events")).toBe(true);
    // Events in the order they happened: the final values, then the graph's own end.
    const finalValues = both.filter((part) => part.event === "values").at(-1);
    expect(lastMessage(finalValues?.data).content).toBe("You are on step 0; the last thing you said was: what did I say");
    expect(both.at(-1)).toMatchObject({ event: "events", data: { event: "on_chain_end", name: "lead_agent" } });
    expect(both.indexOf(finalValues!)).toBe(both.length - 2);
  });

  it("resumes a run's stream after a Last-Event-ID", async () => {
    const thread = await suite.client.threads.create();
    const run = await suite.client.runs.create(thread.thread_id, "lead_agent", { input: human("resume me"), streamMode: ["values", "updates"] });
    await suite.client.runs.join(thread.thread_id, run.run_id);
    const all = await collect(suite.client.runs.joinStream(thread.thread_id, run.run_id));
    const rest = await collect(suite.client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "1" }));
    expect(all.length).toBeGreaterThan(3);
    expect(rest.map((p) => p.event)).toEqual(all.slice(2).map((p) => p.event));
  });

  it("gives CORS to no browser origin by default, not even a loopback one (agent.allowed_origins is empty)", async () => {
    const preflight = (origin: string) =>
      fetch(`${suite.agent.url}/threads/search`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-api-key" } });
    const local = await preflight("http://localhost:3000");
    expect(local.headers.get("access-control-allow-origin")).toBeNull();
    const foreign = await preflight("https://evil.example");
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("cancels the run when a stream with on_disconnect=cancel is dropped", async () => {
    const thread = await suite.client.threads.create();
    const controller = new AbortController();
    let runId = "";
    try {
      for await (const part of suite.client.runs.stream(thread.thread_id, "lead_agent", { input: human("drop me"), afterSeconds: 2, onDisconnect: "cancel", signal: controller.signal })) {
        if (part.event === "metadata") {
          runId = (part.data as { run_id: string }).run_id;
          controller.abort();
        }
      }
    } catch {
      // The SDK may end the loop or throw an AbortError: either way the connection is gone.
    }
    expect(runId).not.toBe("");
    await suite.client.runs.join(thread.thread_id, runId);
    expect((await suite.client.runs.get(thread.thread_id, runId)).status).toBe("interrupted");
  });

  it("runs without a thread (stateless wait)", async () => {
    const values = await suite.client.runs.wait(null, "lead_agent", { input: human("stateless") });
    expect(lastMessage(values).content).toBe("Hello from the script. You said: stateless");
  });

  it("patches, lists history of and deletes a thread", async () => {
    const thread = await suite.client.threads.create();
    await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("x") });
    const patched = await suite.client.threads.update(thread.thread_id, { metadata: { title: "first" } });
    expect(patched.metadata).toMatchObject({ title: "first", graph_id: "lead_agent" });
    const history = await suite.client.threads.getHistory(thread.thread_id, { limit: 10 });
    expect(history.length).toBeGreaterThan(2);
    expect(history[0]?.checkpoint?.checkpoint_id).toBeTruthy();
    const earlier = await suite.client.threads.getState(thread.thread_id, history[1]!.checkpoint.checkpoint_id!);
    expect(earlier.checkpoint.checkpoint_id).toBe(history[1]?.checkpoint.checkpoint_id);
    await suite.client.threads.updateState(thread.thread_id, { values: { activeSkill: "public:notes" }, asNode: "model" });
    expect(((await suite.client.threads.getState(thread.thread_id)).values as { activeSkill: string }).activeSkill).toBe("public:notes");
    await suite.client.threads.delete(thread.thread_id);
    const gone = await rawRequest(`/threads/${thread.thread_id}`);
    expect(gone).toEqual({ status: 404, body: { code: "THREAD_NOT_FOUND", message: `no thread ${thread.thread_id}` } });
  });

  it("answers bad input with a code and a clear message", async () => {
    const noThread = await rawRequest(`/threads/00000000-0000-4000-8000-000000000000/runs/wait`, { method: "POST", body: JSON.stringify({ assistant_id: "lead_agent", input: human("x") }) });
    expect(noThread.status).toBe(404);
    expect(noThread.body.code).toBe("THREAD_NOT_FOUND");
    const badMode = await rawRequest(`/runs/wait`, { method: "POST", body: JSON.stringify({ assistant_id: "lead_agent", stream_mode: "everything" }) });
    expect(badMode.status).toBe(400);
    expect(badMode.body.code).toBe("VALIDATION_FAILED");
    const noAssistant = await rawRequest(`/runs/wait`, { method: "POST", body: JSON.stringify({ assistant_id: "other_graph", input: human("x") }) });
    expect(noAssistant.status).toBe(404);
    expect(noAssistant.body.code).toBe("ASSISTANT_NOT_FOUND");
    const noBody = await rawRequest(`/threads/search`, { method: "POST", body: "{not json" });
    expect(noBody.status).toBe(400);
    const unknownRoute = await rawRequest(`/nope`);
    expect(unknownRoute).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    const refused = await rawRequest(`/assistants/lead_agent`, { method: "PATCH", body: JSON.stringify({ name: "mine" }) });
    expect(refused).toMatchObject({ status: 403, body: { code: "ASSISTANT_PROTECTED" } });
  });

  it("refuses requests whose Host is not loopback when there is no API key", async () => {
    // fetch may not set Host, so this request goes through node:http (what a DNS-rebound page would send).
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.get(`${suite.agent.url}/info`, { headers: { host: "evil.example:2024" } }, (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      request.on("error", reject);
    });
    expect(status).toBe(403);
    expect((JSON.parse(body) as { code: string }).code).toBe("HOST_NOT_ALLOWED");
    expect((await fetch(`${suite.agent.url}/info`)).status).toBe(200);
  });
});
