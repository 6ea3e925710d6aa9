// Approval before a script tool first runs in a thread (tools.approval), through the agent server
// process and the LangGraph SDK with the scripted model: the interrupt in agent-chat-ui's shape,
// approve / reject / edit, garbage answers, approvals remembered per thread (in the thread's state,
// so across runs and restarts), the three policies and scripts_approved. Whether a script ran is read
// from its own output (it reaches the model) and from the tools execution log (a call that never
// started has no record), never from a marker file: untrusted scripts run in the sandbox.
import path from "node:path";
import { processesWithMarker } from "@thinktank/testing";
import { ExecutionLog } from "@thinktank/tools";
import { describe, expect, it } from "vitest";
import { useSuiteProject, type SuiteAgent } from "./support/suite-agent.js";
import type { ProjectFixture } from "./support/project-fixture.js";

// "note X" enters the skill named in "in <skill>" (default notes) and calls its tool with X; in the
// specialist context the tool is called at once. "twice X Y" calls the tool twice in one message.
const script = `
rules:
  - when: { last_human: "^note (\\\\w+)", after_tool: false, tool_available: note }
    tool_calls: [{ name: note, args: { text: "{{match.1}}" } }]
  - when: { last_human: "^note (\\\\w+)", last_tool_name: view_skill, tool_available: note }
    tool_calls: [{ name: note, args: { text: "{{match.1}}" } }]
  - when: { last_human: "^twice (\\\\w+) (\\\\w+)", after_tool: false, tool_available: note }
    tool_calls: [{ name: note, args: { text: "{{match.1}}" } }, { name: note, args: { text: "{{match.2}}" } }]
  - when: { last_human: "^twice (\\\\w+) (\\\\w+)", last_tool_name: view_skill, tool_available: note }
    tool_calls: [{ name: note, args: { text: "{{match.1}}" } }, { name: note, args: { text: "{{match.2}}" } }]
  - when: { last_human: "^house (\\\\w+)", last_tool_name: view_skill, tool_available: house_note }
    tool_calls: [{ name: house_note, args: { text: "{{match.1}}" } }]
  - when: { last_human: "^blessed (\\\\w+)", last_tool_name: view_skill, tool_available: blessed_note }
    tool_calls: [{ name: blessed_note, args: { text: "{{match.1}}" } }]
  - when: { last_human: "^stall", step: 0, tool_available: stall }
    tool_calls: [{ name: stall, args: {} }]
  - when: { last_human: "^(note|twice)", step: 0 }
    tool_calls: [{ name: view_skill, args: { name: notes } }]
  - when: { last_human: "^house", step: 0 }
    tool_calls: [{ name: view_skill, args: { name: house } }]
  - when: { last_human: "^blessed", step: 0 }
    tool_calls: [{ name: view_skill, args: { name: blessed } }]
  - when: { last_tool_name: note }
    reply: "note: {{toolResult.note}}"
  - when: { last_tool_name: house_note }
    reply: "house: {{lastToolResult}}"
  - when: { last_tool_name: blessed_note }
    reply: "blessed: {{lastToolResult}}"
fallback:
  reply: "you said: {{lastHuman}}"
`;

/** A node script (the runtime every sandbox backend runs) that answers what it was given. */
const echo = "let input = '';\nprocess.stdin.on('data', (chunk) => (input += chunk));\nprocess.stdin.on('end', () => console.log(JSON.stringify({ echoed: JSON.parse(input).text })));\n";
const skill = (dir: string, name: string, tool: string, extra: Record<string, unknown> = {}) => ({
  [`skills/${dir}/SKILL.md`]: `---\nname: ${name}\ndescription: Keeps notes (${name})\n---\nWrite notes with ${tool}.\n`,
  [`skills/${dir}/scripts/echo.js`]: echo,
  [`skills/${dir}/tools.json`]: JSON.stringify({
    tools: [
      {
        name: tool,
        description: "Write a note",
        runtime: "node",
        script: "echo.js",
        input_schema: { type: "object", properties: { text: { type: "string", maxLength: 20 } }, required: ["text"], additionalProperties: false },
        ...extra,
      },
    ],
  }),
});
const files: Record<string, string> = {
  ...skill("custom/notes", "notes", "note", { env: { NOTES_TOKEN: "${NOTES_TOKEN}" }, network: ["api.example.com"] }),
  ...skill("custom/blessed", "blessed", "blessed_note"),
  ...skill("public/house", "house", "house_note"),
};
/** A registered tool whose script runs until it is killed. */
const stall = { description: "Wait for ever", runtime: "node", script: "stall-approval.js", timeout: 300, input_schema: { type: "object", properties: {} } };
files["tools/stall-approval.js"] = "setInterval(() => {}, 60_000);\n";
const extensions = { skills: { "custom:blessed": { scripts_approved: true } }, tools: { stall } };

type Message = { type: string; content: unknown; status?: string; tool_calls?: { name: string; args: unknown }[] };
type Interrupt = { value: { action_requests: { name: string; args: unknown; description: string }[]; review_configs: unknown[]; tool_approvals: Record<string, unknown>[] } };
type Values = { messages: Message[]; approvedTools?: string[]; __interrupt__?: Interrupt[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });

function helpers(suite: SuiteAgent<ProjectFixture>) {
  const say = async (threadId: string, text: string) => (await suite.client.runs.wait(threadId, "lead_agent", { input: human(text) })) as Values;
  const resume = async (threadId: string, answer: unknown) => (await suite.client.runs.wait(threadId, "lead_agent", { command: { resume: answer } })) as Values;
  const thread = async () => (await suite.client.threads.create()).thread_id;
  /** The calls of `tool` in the tools execution log for one thread. */
  const executions = async (tool: string, threadId: string) =>
    (await new ExecutionLog({ dir: path.join(suite.fixture.dir, "data/logs/tools") }).recent({ tool, limit: 100 })).filter((record) => record.thread_id === threadId);
  return { say, resume, thread, executions };
}
const notRunText = "cancelled: a new message came before this call was approved or answered, so it did not run";
const last = (values: Values) => values.messages.at(-1)?.content;
const toolReplies = (values: Values) => values.messages.filter((message) => message.type === "tool" && message.status !== undefined && !String(message.content).startsWith("Switched"));

describe("tools.approval: untrusted (the default)", { timeout: 180_000 }, () => {
  const suite = useSuiteProject({ script, files, extensions });
  const { say, resume, thread, executions } = helpers(suite);

  it("interrupts before an untrusted script tool's first call, in agent-chat-ui's shape, with nothing run", async () => {
    const id = await thread();
    const paused = await say(id, "note hello");
    const value = paused.__interrupt__?.[0]?.value;
    expect(value?.action_requests).toEqual([{ name: "note", args: { text: "hello" }, description: expect.any(String) }]);
    expect(value?.review_configs).toEqual([{ action_name: "note", allowed_decisions: ["approve", "edit", "reject"] }]);
    expect(value?.tool_approvals).toEqual([{ tool: "note", skill: "custom:notes", plugin: null, trusted: false, runtime: "node", network: ["api.example.com"], env: ["NOTES_TOKEN"], policy: "untrusted", reason: expect.stringContaining("untrusted") }]);
    const description = value?.action_requests[0]?.description ?? "";
    for (const part of ["untrusted code", "skill notes (custom:notes)", "node", "in the sandbox", "Network: it may reach api.example.com", "NOTES_TOKEN", "first call"]) expect(description).toContain(part);
    const record = await suite.client.threads.get(id);
    expect(record.status).toBe("interrupted");
    expect(Object.values(record.interrupts).flat()[0]).toMatchObject({ value: { action_requests: [{ name: "note" }] } });
    expect((await suite.client.threads.getState(id)).next).toEqual(["tools"]);
    expect(await executions("note", id)).toEqual([]);
  });

  it("approve runs it; the approval holds for the thread in later runs, and another thread asks again", async () => {
    const id = await thread();
    await say(id, "note first");
    const done = await resume(id, { decisions: [{ type: "approve" }] });
    expect(last(done)).toBe('note: {"echoed":"first"}');
    expect(done.approvedTools).toEqual([expect.stringMatching(/^custom:notes\/note@[0-9a-f]{16}$/)]);
    expect((await suite.client.threads.get(id)).status).toBe("idle");

    const again = await say(id, "note second");
    expect(again.__interrupt__).toBeUndefined();
    expect(last(again)).toBe('note: {"echoed":"second"}');
    expect((await executions("note", id)).map((record) => record.arguments)).toEqual([{ text: "second" }, { text: "first" }]);

    const other = await thread();
    expect((await say(other, "note third")).__interrupt__?.[0]?.value.action_requests[0]?.name).toBe("note");
  });

  it("reject gives the model the reviewer's message as an error tool message, and nothing runs", async () => {
    const id = await thread();
    await say(id, "note secret");
    const done = await resume(id, { decisions: [{ type: "reject", message: "not with that text" }] });
    expect(toolReplies(done)).toEqual([expect.objectContaining({ status: "error", content: "TOOL_REJECTED: the user rejected this call of note, so it did not run. Their message: not with that text" })]);
    expect(last(done)).toBe("note: TOOL_REJECTED: the user rejected this call of note, so it did not run. Their message: not with that text");
    expect(await executions("note", id)).toEqual([]);
    expect((await suite.client.threads.getState(id)).values).toMatchObject({ approvedTools: [] });
    // Not approved: the next call asks again.
    expect((await say(id, "note again")).__interrupt__).toHaveLength(1);
  });

  it("edit runs it with the edited arguments, checked against the input schema like any call", async () => {
    const id = await thread();
    await say(id, "note draft");
    const done = await resume(id, { decisions: [{ type: "edit", edited_action: { name: "note", args: { text: "final" } } }] });
    expect(last(done)).toBe('note: {"echoed":"final"}');
    // The AI message records the arguments the call ran with.
    expect(done.messages.flatMap((message) => message.tool_calls ?? []).find((call) => call.name === "note")?.args).toEqual({ text: "final" });
    expect((await executions("note", id)).map((record) => record.arguments)).toEqual([{ text: "final" }]);

    // Arguments the schema refuses fail as a model's would (the script never starts); another tool's name runs nothing.
    const bad = await thread();
    await say(bad, "note draft");
    const refused = await resume(bad, { decisions: [{ type: "edit", edited_action: { name: "note", args: { text: "x".repeat(30) } } }] });
    expect(toolReplies(refused)[0]).toMatchObject({ status: "error", content: expect.stringContaining("did not match expected schema") });
    expect(await executions("note", bad)).toEqual([]);
    const renamed = await thread();
    await say(renamed, "note draft");
    const other = await resume(renamed, { decisions: [{ type: "edit", edited_action: { name: "house_note", args: { text: "x" } } }] });
    expect(toolReplies(other)[0]).toMatchObject({ status: "error", content: expect.stringContaining("the edit names tool 'house_note', but approval was asked for 'note'") });
    expect(await executions("note", renamed)).toEqual([]);
    expect(await executions("house_note", renamed)).toEqual([]);
  });

  it("an answer it cannot read is a rejection that says so; nothing runs", async () => {
    for (const garbage of ["sure", { decisions: [{ type: "maybe" }] }, { approve: true }]) {
      const id = await thread();
      await say(id, "note hello");
      const done = await resume(id, garbage);
      expect(toolReplies(done)[0]).toMatchObject({ status: "error", content: expect.stringContaining("was not understood") });
      expect(await executions("note", id)).toEqual([]);
      expect((await suite.client.threads.get(id)).status).toBe("idle");
    }
  });

  it("asks once for two calls in one message, and applies each decision to its call", async () => {
    const id = await thread();
    const paused = await say(id, "twice alpha beta");
    expect(paused.__interrupt__?.[0]?.value.action_requests.map((request) => request.args)).toEqual([{ text: "alpha" }, { text: "beta" }]);
    const done = await resume(id, { decisions: [{ type: "approve" }, { type: "reject", message: "one is enough" }] });
    expect(toolReplies(done).map((message) => message.status).sort()).toEqual(["error", "success"]);
    expect((await executions("note", id)).map((record) => record.arguments)).toEqual([{ text: "alpha" }]);
  });

  it("trusted (public) skills and skills with scripts_approved run without asking", async () => {
    expect(last(await say(await thread(), "house keys"))).toBe('house: {"echoed":"keys"}');
    expect(last(await say(await thread(), "blessed day"))).toBe('blessed: {"echoed":"day"}');
  });

  it("a new message instead of an answer drops the question and answers the waiting call, in place, as not run", async () => {
    const id = await thread();
    await say(id, "note hello");
    const next = await say(id, "never mind");
    expect(next.__interrupt__).toBeUndefined();
    expect(next.messages.map((message) => [message.type, message.type === "tool" ? message.status : message.content])).toEqual([
      ["human", "note hello"],
      ["ai", ""],
      ["tool", "success"],
      ["ai", ""],
      ["tool", "error"],
      ["human", "never mind"],
      ["ai", "you said: never mind"],
    ]);
    expect(next.messages[4]?.content).toBe(notRunText);
    expect(await executions("note", id)).toEqual([]);
    expect((await suite.client.threads.get(id)).status).toBe("idle");
  });

  it("cancelling the paused run changes nothing: the question stays open for a resume", async () => {
    const id = await thread();
    const run = await suite.client.runs.create(id, "lead_agent", { input: human("note hello") });
    await suite.client.runs.join(id, run.run_id);
    expect((await suite.client.runs.get(id, run.run_id)).status).toBe("interrupted");
    await suite.client.runs.cancel(id, run.run_id, true);
    expect((await suite.client.threads.get(id)).status).toBe("interrupted");
    const done = await resume(id, { decisions: [{ type: "reject", message: "later" }] });
    expect(toolReplies(done)[0]).toMatchObject({ status: "error", content: expect.stringContaining("Their message: later") });
  });
});

describe("tools.approval: always", { timeout: 180_000 }, () => {
  const suite = useSuiteProject({ script, files, extensions, config: ["tools:", "  approval: always"] });
  const { say, resume, thread } = helpers(suite);

  it("asks before a registered tool's first call; a resumed run cancelled while the approved script runs kills it and leaves the question open", async () => {
    const id = await thread();
    const paused = await say(id, "stall");
    expect(paused.__interrupt__?.[0]?.value.tool_approvals).toEqual([expect.objectContaining({ tool: "stall", skill: null, trusted: true, runtime: "node", policy: "always" })]);
    expect(paused.__interrupt__?.[0]?.value.action_requests[0]?.description).toContain("a tool registered on this server");
    const marker = path.join(suite.fixture.dir, "tools/stall-approval.js");
    const run = await suite.client.runs.create(id, "lead_agent", { command: { resume: { decisions: [{ type: "approve" }] } } });
    await expect.poll(() => processesWithMarker(marker).length, { timeout: 60_000, interval: 25, message: "the approved script started" }).toBeGreaterThan(0);
    await suite.client.runs.cancel(id, run.run_id, true);
    expect(processesWithMarker(marker)).toEqual([]);
    // The question is open again (the cancelled run's answer is not kept), and the next answer decides.
    const record = await suite.client.threads.get(id);
    expect(record.status).toBe("interrupted");
    expect(Object.values(record.interrupts).flat()[0]).toMatchObject({ value: { action_requests: [{ name: "stall" }] } });
    const rejected = await resume(id, { decisions: [{ type: "reject", message: "changed my mind" }] });
    expect(processesWithMarker(marker)).toEqual([]);
    expect(rejected.messages.filter((message) => message.type === "tool")).toEqual([expect.objectContaining({ status: "error", content: expect.stringContaining("Their message: changed my mind") })]);
    expect((await suite.client.threads.get(id)).status).toBe("idle");
  });

  it("asks before the first call of trusted script tools too, but never for scripts_approved", async () => {
    const id = await thread();
    const paused = await say(id, "house keys");
    expect(paused.__interrupt__?.[0]?.value.tool_approvals).toEqual([expect.objectContaining({ tool: "house_note", skill: "public:house", trusted: true, policy: "always" })]);
    expect(paused.__interrupt__?.[0]?.value.action_requests[0]?.description).toContain("trusted code");
    expect(last(await resume(id, { decisions: [{ type: "approve" }] }))).toBe('house: {"echoed":"keys"}');
    expect(last(await say(await thread(), "blessed day"))).toBe('blessed: {"echoed":"day"}');
  });
});

describe("tools.approval: never", { timeout: 180_000 }, () => {
  const suite = useSuiteProject({ script, files, extensions, config: ["tools:", "  approval: never"] });
  const { say, thread } = helpers(suite);

  it("runs untrusted script tools without asking", async () => {
    expect(last(await say(await thread(), "note hello"))).toBe('note: {"echoed":"hello"}');
  });
});
