import fs from "node:fs";
import path from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ScriptedChatModel } from "@thinktank/models";
import { makeTempDir } from "@thinktank/testing";
import Database from "better-sqlite3";
import { describe, expect, it, onTestFinished } from "vitest";
import { buildLeadAgentGraph } from "../graph/build-lead-agent-graph.js";
import { notAnsweredText } from "../graph/unanswered-tool-calls.js";
import type { RequestContext } from "../request/request-context.js";
import { markScriptTool, registeredScriptFacts, skillScriptFacts } from "./script-tool-facts.js";
import { approvalKey, type ToolApprovalPolicy } from "./tool-approval.js";

// Graph lead_agent in process over an in-memory checkpointer: the review's decisions, one by one.
// (apps/agent/test/tool-approval.test.ts drives the same through the agent server and the SDK.)

const ran: string[] = [];
const echoTool = (name: string) =>
  tool(
    async ({ text }: { text: string }) => {
      ran.push(`${name}:${text}`);
      return `${name} ran with ${text}`;
    },
    { name, description: name, schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  );

const customSkill = { identity: "custom:words", name: "words", category: "custom", trusted: false, scriptsApproved: false };
const pluginSkill = { identity: "plugin:sales:prep", name: "prep", category: "plugin:sales", trusted: false, scriptsApproved: false };
const definition = { runtime: "python", network: ["api.example.com"], env: { WORDS_TOKEN: "${WORDS_TOKEN}" } };

const model = new ScriptedChatModel({
  script: {
    rules: [
      // "call <tool> with <text>" (a tool name is no template, so one rule per tool)
      ...["untrusted", "plugin_tool", "trusted", "approved_skill", "registered", "plain"].map((name) => ({
        when: { last_human: `^call ${name} with (\\w+)`, step: 0 },
        tool_calls: [{ name, args: { text: "{{match.1}}" } }],
      })),
      { when: { last_human: "^both", step: 0 }, tool_calls: [{ name: "untrusted", args: { text: "one" } }, { name: "plugin_tool", args: { text: "two" } }, { name: "plain", args: { text: "three" } }] },
      { when: { after_tool: true }, reply: "done: {{lastToolResult}}" },
    ],
    fallback: { reply: "hello" },
  },
});

/** `script`: the untrusted tool's script file and network, and a checkpointer shared by graphs made with different ones. */
function graphWith(policy: ToolApprovalPolicy, script: { path: string; network: readonly string[]; saver: SqliteSaver } | undefined = undefined, subagent = false) {
  const context: RequestContext = {
    model,
    modelName: "scripted",
    systemPrompt: "ROUTER",
    tools: [
      markScriptTool(echoTool("untrusted"), skillScriptFacts(customSkill, script ? { ...definition, scriptPath: script.path, network: script.network } : definition)),
      markScriptTool(echoTool("plugin_tool"), skillScriptFacts(pluginSkill, { runtime: "node" })),
      markScriptTool(echoTool("trusted"), skillScriptFacts({ ...customSkill, identity: "public:ops", category: "public", trusted: true }, definition)),
      markScriptTool(echoTool("approved_skill"), skillScriptFacts({ ...customSkill, scriptsApproved: true }, definition)),
      markScriptTool(echoTool("registered"), registeredScriptFacts({ runtime: "shell" })),
      echoTool("plain"),
    ],
  };
  if (subagent) return buildLeadAgentGraph(context, false, { toolApproval: policy, subagent: true });
  return buildLeadAgentGraph(context, script?.saver ?? new SqliteSaver(new Database(":memory:")), { toolApproval: policy });
}

type Values = { messages: BaseMessage[]; approvedTools: string[]; __interrupt__?: { value: Record<string, unknown> }[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });

async function start(graph: ReturnType<typeof graphWith>, thread: string, text: string): Promise<Values> {
  return (await graph.invoke(human(text) as never, { configurable: { thread_id: thread } })) as unknown as Values;
}
async function resume(graph: ReturnType<typeof graphWith>, thread: string, answer: unknown): Promise<Values> {
  return (await graph.invoke(new Command({ resume: answer }) as never, { configurable: { thread_id: thread } })) as unknown as Values;
}
const toolMessages = (values: Values) => values.messages.filter((message) => message.getType() === "tool") as (BaseMessage & { status?: string })[];

describe("tool approval in graph lead_agent", () => {
  it("a sub-agent (options.subagent) never interrupts: a call that needs approval answers an error saying why; the thread's approvals carry over", async () => {
    ran.length = 0;
    const graph = graphWith("untrusted", undefined, true);
    const refused = (await graph.invoke(human("both") as never)) as unknown as Values;
    expect(refused.__interrupt__).toBeUndefined();
    expect(ran).toEqual(["plain:three"]);
    const [untrusted, plugin] = toolMessages(refused);
    expect(untrusted).toMatchObject({ status: "error", content: expect.stringMatching(/^TOOL_REJECTED: untrusted needs the user's approval .* a sub-agent cannot ask for it, so it did not run/) });
    expect(plugin).toMatchObject({ status: "error", content: expect.stringMatching(/^TOOL_REJECTED: plugin_tool needs the user's approval/) });

    ran.length = 0;
    const approved = approvalKey("untrusted", skillScriptFacts(customSkill, definition));
    await graph.invoke({ ...human("call untrusted with hi"), approvedTools: [approved] } as never);
    expect(ran).toEqual(["untrusted:hi"]);
  });

  it("asks before an untrusted script tool's first call, in agent-chat-ui's shape, and runs nothing meanwhile", async () => {
    ran.length = 0;
    const paused = await start(graphWith("untrusted"), "shape", "call untrusted with hi");
    expect(ran).toEqual([]);
    const value = paused.__interrupt__?.[0]?.value;
    expect(value?.action_requests).toEqual([{ name: "untrusted", args: { text: "hi" }, description: expect.stringContaining("untrusted code") }]);
    expect(value?.review_configs).toEqual([{ action_name: "untrusted", allowed_decisions: ["approve", "edit", "reject"] }]);
    expect(value?.tool_approvals).toEqual([
      { tool: "untrusted", skill: "custom:words", plugin: null, trusted: false, runtime: "python", network: ["api.example.com"], env: ["WORDS_TOKEN"], policy: "untrusted", reason: expect.stringContaining("untrusted") },
    ]);
    const description = String((value?.action_requests as { description: string }[])[0]?.description);
    for (const part of ["skill words (custom:words)", "python", "sandbox", "api.example.com", "WORDS_TOKEN", "first call"]) expect(description).toContain(part);
  });

  it("approve runs the call and remembers the approval for the thread; another thread asks again", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    await start(graph, "approve", "call untrusted with hi");
    const done = await resume(graph, "approve", { decisions: [{ type: "approve" }] });
    expect(ran).toEqual(["untrusted:hi"]);
    expect(done.messages.at(-1)?.content).toBe("done: untrusted ran with hi");
    expect(done.approvedTools).toEqual([expect.stringMatching(/^custom:words\/untrusted@[0-9a-f]{16}$/)]);
    const again = await start(graph, "approve", "call untrusted with again");
    expect(again.__interrupt__).toBeUndefined();
    expect(ran).toEqual(["untrusted:hi", "untrusted:again"]);
    expect((await start(graph, "other-thread", "call untrusted with hi")).__interrupt__).toHaveLength(1);
  });

  it("reject answers the call with the reviewer's message as an error tool message; nothing runs", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    await start(graph, "reject", "call untrusted with hi");
    const done = await resume(graph, "reject", { decisions: [{ type: "reject", message: "not on my laptop" }] });
    expect(ran).toEqual([]);
    expect(toolMessages(done)).toEqual([expect.objectContaining({ status: "error", content: "TOOL_REJECTED: the user rejected this call of untrusted, so it did not run. Their message: not on my laptop" })]);
    expect(done.approvedTools).toEqual([]);
    expect((await start(graph, "reject", "call untrusted with hi")).__interrupt__).toHaveLength(1);
  });

  it("edit runs the call with the edited arguments (recorded on the AI message); an edit naming another tool runs nothing", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    await start(graph, "edit", "call untrusted with hi");
    const done = await resume(graph, "edit", { decisions: [{ type: "edit", edited_action: { name: "untrusted", args: { text: "edited" } } }] });
    expect(ran).toEqual(["untrusted:edited"]);
    expect((done.messages[1] as { tool_calls?: { args: unknown }[] }).tool_calls?.[0]?.args).toEqual({ text: "edited" });
    expect(done.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);

    await start(graph, "edit-other", "call untrusted with hi");
    const refused = await resume(graph, "edit-other", { decisions: [{ type: "edit", edited_action: { name: "trusted", args: { text: "x" } } }] });
    expect(ran).toEqual(["untrusted:edited"]);
    expect(String(toolMessages(refused)[0]?.content)).toMatch(/^TOOL_REJECTED: the edit names tool 'trusted', but approval was asked for 'untrusted'/);
  });

  it("an answer it cannot read is a rejection that says so", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    for (const [index, garbage] of ["yes please", { decisions: [{ type: "shrug" }] }, { decisions: [] }, {}, 42, ["extra"]].entries()) {
      await start(graph, `garbage-${index}`, "call untrusted with hi");
      const done = await resume(graph, `garbage-${index}`, garbage);
      expect(toolMessages(done)[0]).toMatchObject({ status: "error", content: expect.stringContaining("was not understood") });
    }
    expect(ran).toEqual([]);
  });

  it("asks once for every call of a message that needs it, and applies the decisions in order", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    const paused = await start(graph, "parallel", "both");
    const value = paused.__interrupt__?.[0]?.value;
    expect((value?.action_requests as { name: string }[]).map((request) => request.name)).toEqual(["untrusted", "plugin_tool"]);
    expect(String((value?.action_requests as { description: string }[])[1]?.description)).toContain("skill prep (plugin:sales:prep, from plugin sales)");
    const done = await resume(graph, "parallel", { decisions: [{ type: "reject", message: "no" }, { type: "approve" }] });
    expect(ran.sort()).toEqual(["plain:three", "plugin_tool:two"]);
    expect(toolMessages(done).map((message) => message.status)).toEqual(["error", "success", "success"]);
    expect(done.approvedTools).toEqual([expect.stringMatching(/^plugin:sales:prep\/plugin_tool@[0-9a-f]{16}$/)]);
  });

  it("runs nothing when the answer's decisions do not match the requests one for one", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    await start(graph, "one-for-two", "both");
    const done = await resume(graph, "one-for-two", { decisions: [{ type: "approve" }] });
    expect(ran).toEqual(["plain:three"]);
    const refusals = toolMessages(done).filter((message) => message.status === "error");
    expect(refusals.map((message) => message.name)).toEqual(["untrusted", "plugin_tool"]);
    for (const refusal of refusals) expect(String(refusal.content)).toContain("one decision for each of the 2 action requests");
  });

  it("a new message instead of an answer drops the question; the waiting call is answered in place before the model sees the history", async () => {
    const graph = graphWith("untrusted");
    ran.length = 0;
    await start(graph, "moved-on", "call untrusted with hi");
    const next = await start(graph, "moved-on", "something else");
    expect(ran).toEqual([]);
    expect(next.__interrupt__).toBeUndefined();
    expect(next.messages.map((message) => [message.getType(), String(message.content)])).toEqual([
      ["human", "call untrusted with hi"],
      ["ai", ""],
      ["tool", notAnsweredText],
      ["human", "something else"],
      ["ai", "hello"],
    ]);
  });

  it("policies: untrusted skips trusted and registered tools; always asks for them too; never asks for none; scripts_approved never asks", async () => {
    const untrusted = graphWith("untrusted");
    for (const name of ["trusted", "registered", "approved_skill", "plain"]) expect((await start(untrusted, `u-${name}`, `call ${name} with x`)).__interrupt__, name).toBeUndefined();
    const always = graphWith("always");
    for (const name of ["trusted", "registered", "untrusted"]) {
      const paused = await start(always, `a-${name}`, `call ${name} with x`);
      expect(paused.__interrupt__?.[0]?.value.tool_approvals, name).toEqual([expect.objectContaining({ tool: name, policy: "always", reason: expect.stringContaining("'always'") })]);
    }
    for (const name of ["approved_skill", "plain"]) expect((await start(always, `a-${name}`, `call ${name} with x`)).__interrupt__, name).toBeUndefined();
    const never = graphWith("never");
    expect((await start(never, "n", "call untrusted with x")).__interrupt__).toBeUndefined();
  });

  it("an approval holds for the script as it was reviewed: a changed script, or one that asks for more network, asks again", async () => {
    const temp = makeTempDir("tt-approval-script-");
    onTestFinished(() => temp.cleanup());
    const file = path.join(temp.dir, "count.py");
    fs.writeFileSync(file, "print('one')\n");
    const script = { path: file, network: ["api.example.com"], saver: new SqliteSaver(new Database(":memory:")) };
    const graph = graphWith("untrusted", script);
    ran.length = 0;
    await start(graph, "content", "call untrusted with hi");
    await resume(graph, "content", { decisions: [{ type: "approve" }] });
    expect((await start(graph, "content", "call untrusted with same")).__interrupt__).toBeUndefined();
    expect(ran).toEqual(["untrusted:hi", "untrusted:same"]);
    // The skill is reinstalled with another script under the same name: the thread is asked again.
    fs.writeFileSync(file, "print('two')\n");
    expect((await start(graph, "content", "call untrusted with changed")).__interrupt__).toHaveLength(1);
    expect(ran).toEqual(["untrusted:hi", "untrusted:same"]);
    const approvedTwice = await resume(graph, "content", { decisions: [{ type: "approve" }] });
    expect(ran).toEqual(["untrusted:hi", "untrusted:same", "untrusted:changed"]);
    expect(approvedTwice.approvedTools).toHaveLength(2);
    // The same script with a wider network declaration is another approval too.
    const wider = graphWith("untrusted", { ...script, network: ["api.example.com", "*.elsewhere.example"] });
    expect((await start(wider, "content", "call untrusted with wider")).__interrupt__).toHaveLength(1);
    expect((await start(graphWith("untrusted", script), "content-2", "call untrusted with x")).__interrupt__).toHaveLength(1);
  });
});
