import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { loadConfig, ThinktankError, type Config } from "@thinktank/core";
import { ScriptedChatModel } from "@thinktank/models";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { DelegationLimits, builtinAgents, type AgentDefinition, type AgentsSnapshot } from "@thinktank/subagents";
import { afterAll, describe, expect, it } from "vitest";
import { buildLeadAgentGraph } from "../graph/build-lead-agent-graph.js";
import type { RequestContext } from "../request/request-context.js";
import type { Delegation } from "./delegation-record.js";
import { createTaskTool } from "./task-tool.js";

const temp = makeTempDir("tt-task-");
afterAll(() => temp.cleanup());
writeTree(temp.dir, { "config.yaml": "models:\n  providers:\n    s:\n      provider: scripted\n" });

const reviewer: AgentDefinition = {
  identity: "custom:reviewer",
  name: "reviewer",
  source: "custom",
  description: "Reviews text",
  tools: ["Read"],
  enabled: true,
  defaultEnabled: true,
  frontmatter: {},
};
const off: AgentDefinition = { ...reviewer, identity: "custom:off", name: "off", enabled: false };
/** Its model is configured (`s`) but cannot be built here. */
const other: AgentDefinition = { ...reviewer, identity: "custom:other", name: "other", model: "s" };
/** Claude Code's maxTurns: this one loops, and 3 turns stop it. */
const looper: AgentDefinition = { ...reviewer, identity: "custom:looper", name: "looper", tools: undefined, frontmatter: { maxTurns: 3 } };
const snapshot: AgentsSnapshot = { agents: [...builtinAgents, reviewer, off, other, looper], problems: [] };

const prompts: Record<string, string> = { "custom:reviewer": "You are REVIEWER-PERSONA.", "builtin:general-purpose": "You are GENERAL-PERSONA.", "custom:looper": "You are LOOPER-PERSONA." };

const started: string[] = [];
/** A tool that waits `ms` or until its call is aborted (the signal a cancel or timeout gives). */
const wait = tool(
  async ({ ms }: { ms: string }, config) =>
    new Promise<string>((resolve, reject) => {
      started.push(`wait:${ms}`);
      const signal = (config as { signal?: AbortSignal }).signal;
      const timer = setTimeout(() => resolve(`waited ${ms}`), Number(ms));
      signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("aborted"))), { once: true });
    }),
  { name: "wait", description: "waits", schema: { type: "object", properties: { ms: { type: "string" } }, required: ["ms"] } },
);
const readFile = tool(async () => "file text", { name: "read_file", description: "reads", schema: { type: "object", properties: {} } });
const report = { path: "/mnt/user-data/outputs/report.md", name: "report.md", size: 12, mime_type: "text/markdown", url: "/threads/t/files/outputs/report.md" };
const presentFiles = tool(async () => ["Shown to the user: report.md", [report]], {
  name: "present_files",
  description: "shows",
  schema: { type: "object", properties: {} },
  responseFormat: "content_and_artifact",
});
const writeFile = tool(async () => "written", { name: "write_file", description: "writes", schema: { type: "object", properties: {} } });

const model = new ScriptedChatModel({
  script: {
    rules: [
      // Sub-agents (their system prompt is the agent's).
      { when: { system: "REVIEWER-PERSONA", tool_available: "write_file" }, reply: "WRONG: the reviewer was given write_file" },
      { when: { system: "REVIEWER-PERSONA", step: 0, tool_available: "read_file" }, tool_calls: [{ name: "read_file", args: {} }] },
      { when: { system: "REVIEWER-PERSONA", last_tool_name: "read_file" }, reply: "review: {{lastToolResult}}" },
      { when: { system: "GENERAL-PERSONA", last_human: "^nest", step: 0 }, tool_calls: [{ name: "task", args: { subagent_type: "reviewer", description: "nested", prompt: "x" } }] },
      { when: { system: "GENERAL-PERSONA", last_human: "^present", step: 0 }, tool_calls: [{ name: "present_files", args: {} }] },
      { when: { system: "GENERAL-PERSONA", last_human: "^wait (\\d+)", step: 0 }, tool_calls: [{ name: "wait", args: { ms: "{{match.1}}" } }] },
      { when: { system: "GENERAL-PERSONA", after_tool: true }, reply: "sub says {{lastToolResult}}" },
      { when: { system: "LOOPER-PERSONA" }, tool_calls: [{ name: "read_file", args: {} }] },
      // The lead.
      { when: { last_human: "^delegate (\\S+) (.*)$", step: 0 }, tool_calls: [{ name: "task", args: { subagent_type: "{{match.1}}", description: "a job", prompt: "{{match.2}}" } }] },
      {
        when: { last_human: "^three", step: 0 },
        tool_calls: [1, 2, 3].map((index) => ({ name: "task", args: { subagent_type: "general-purpose", description: `job ${index}`, prompt: "wait 300" } })),
      },
      { when: { after_tool: true }, reply: "lead got: {{lastToolResult}}" },
    ],
    fallback: { reply: "fallback" },
  },
});

function setup(subagents: Partial<Config["subagents"]> = {}) {
  const base = loadConfig({ cwd: temp.dir, env: {} });
  const config = { ...base, subagents: { ...base.subagents, ...subagents } } as Config;
  const holder: { lead?: RequestContext } = {};
  const task = createTaskTool({
    agents: () => snapshot,
    parent: () => holder.lead as RequestContext,
    limits: new DelegationLimits({ maxConcurrent: config.subagents.max_concurrent, maxPerRun: config.subagents.max_per_run }),
    depth: 1,
    config,
    readPrompt: async (agent) => prompts[agent.identity] ?? "",
    createModel: (name) => Promise.reject(new ThinktankError("MODEL_NOT_CONFIGURED", `model ${name} cannot be built here`)),
  });
  const lead: RequestContext = { model, modelName: "scripted", systemPrompt: "LEAD", sections: [{ id: "role", text: "LEAD" }, { id: "environment", text: "ENV", order: 1000 }], tools: [readFile, writeFile, wait, presentFiles, task] };
  holder.lead = lead;
  const graph = buildLeadAgentGraph(lead, new MemorySaver());
  let thread = 0;
  const ask = async (text: string) => {
    const result = await graph.invoke({ messages: [{ type: "human", content: text }] } as never, { configurable: { thread_id: `t${(thread += 1)}` } });
    return result as unknown as { messages: { getType(): string; content: unknown; status?: string; additional_kwargs?: Record<string, unknown> }[]; delegations: Delegation[]; artifacts: unknown[] };
  };
  return { ask };
}

describe("the task tool", () => {
  it("runs the agent in a context of its own (its prompt, only its tools) and gives the lead only its answer", async () => {
    const { ask } = setup();
    const result = await ask("delegate reviewer check the draft");
    expect(result.messages.map((message) => message.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(String(result.messages[2]?.content)).toMatch(/^review: file text\n\n\[sub-agent custom:reviewer: \d+ input and \d+ output tokens \(counted\), [\d.]+ s\]$/);
    expect(result.delegations).toEqual([expect.objectContaining({ agent: "custom:reviewer", description: "a job", status: "ok", depth: 1 })]);
    expect(result.delegations[0]?.input_tokens).toBeGreaterThan(0);
  });

  it("files a sub-agent presents are the user's: in the lead's state and on the lead's next answer", async () => {
    const { ask } = setup();
    const result = await ask("delegate general-purpose present the report");
    expect(result.artifacts).toEqual([report]);
    expect(result.messages[2]?.additional_kwargs?.artifacts).toEqual([report]);
    expect(result.messages[3]?.additional_kwargs?.artifacts).toEqual([report]);
  });

  it("an unknown or disabled agent answers SUBAGENT_FAILED with the reason, and the lead goes on", async () => {
    const { ask } = setup();
    const unknown = await ask("delegate reviewr x");
    expect(unknown.messages[2]).toMatchObject({ status: "error", content: expect.stringMatching(/^SUBAGENT_FAILED: AGENT_NOT_FOUND: .*reviewer/) });
    expect(String(unknown.messages.at(-1)?.content)).toMatch(/^lead got: SUBAGENT_FAILED/);
    const disabled = await ask("delegate off x");
    expect(disabled.messages[2]).toMatchObject({ status: "error", content: expect.stringMatching(/^SUBAGENT_FAILED: AGENT_NOT_FOUND: .*disabled/) });
    expect(disabled.delegations).toEqual([expect.objectContaining({ agent: "off", status: "failed" })]);
  });

  it("a sub-agent whose model fails answers SUBAGENT_FAILED with the model's error; the run goes on", async () => {
    const { ask } = setup();
    const result = await ask("delegate other x");
    expect(result.messages[2]).toMatchObject({ status: "error", content: "SUBAGENT_FAILED: custom:other: MODEL_NOT_CONFIGURED: model s cannot be built here" });
    expect(String(result.messages[3]?.content)).toMatch(/^lead got: SUBAGENT_FAILED/);
    expect(result.delegations).toEqual([expect.objectContaining({ agent: "custom:other", status: "failed", error: expect.stringContaining("MODEL_NOT_CONFIGURED") })]);
  });

  it("an agent's maxTurns bounds its steps: a looping one answers SUBAGENT_FAILED saying so", async () => {
    const { ask } = setup();
    const result = await ask("delegate looper go");
    expect(result.messages[2]).toMatchObject({ status: "error", content: "SUBAGENT_FAILED: custom:looper: it did not finish within its maxTurns (3 model turns)" });
  });

  it("a sub-agent at max_depth that calls task is refused, and answers with the refusal", async () => {
    const { ask } = setup({ max_depth: 1 });
    const result = await ask("delegate general-purpose nest");
    expect(String(result.messages[2]?.content)).toMatch(/^sub says SUBAGENT_FAILED: a sub-agent at depth 1 cannot start sub-agents .*max_depth is 1/);
  });

  it("with max_depth 2 the sub-agent delegates in its turn", async () => {
    const { ask } = setup({ max_depth: 2 });
    const result = await ask("delegate general-purpose nest");
    expect(String(result.messages[2]?.content)).toMatch(/^sub says review: file text/);
  });

  it("runs max_concurrent at once, the rest after a slot frees; past max_per_run a call is refused", async () => {
    const { ask } = setup({ max_concurrent: 2, max_per_run: 2 });
    started.length = 0;
    const result = await ask("three");
    const tools = result.messages.filter((message) => message.getType() === "tool");
    expect(tools.map((message) => message.status)).toEqual(["success", "success", "error"]);
    expect(String(tools[2]?.content)).toMatch(/^SUBAGENT_FAILED: builtin:general-purpose was not started: .*max_per_run \(2\)/);

    const queued = setup({ max_concurrent: 2, max_per_run: 6 });
    const waited = await queued.ask("three");
    const [first, second, third] = waited.delegations;
    expect([first?.queued_ms, second?.queued_ms]).toEqual([expect.any(Number), expect.any(Number)]);
    expect(Math.max(first?.queued_ms ?? 0, second?.queued_ms ?? 0)).toBeLessThan(200);
    expect(third?.queued_ms).toBeGreaterThanOrEqual(250);
  });

  it("a sub-agent past timeout_seconds is stopped with its tools and answers SUBAGENT_TIMEOUT", async () => {
    const { ask } = setup({ timeout_seconds: 0.2 });
    const result = await ask("delegate general-purpose wait 60000");
    expect(result.messages[2]).toMatchObject({ status: "error", content: expect.stringMatching(/^SUBAGENT_TIMEOUT: builtin:general-purpose did not finish within subagents.timeout_seconds \(0.2 s\)/) });
    expect(result.delegations[0]).toMatchObject({ status: "timeout" });
    expect(result.delegations[0]?.duration_ms).toBeLessThan(5000);
  });
});
