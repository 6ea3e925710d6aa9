// `thinktank inspect prompt --agent` (PromptInspector.inspectAgent) against what a sub-agent is
// really sent: the lead delegates to a plugin's agent over the HTTP API, and a bench of the scripted
// model records every call's system prompt and bound tools; the sub-agent's first call must be what
// the inspection shows. The lead's own prompt shows the agents in `<subagent_system>`.
import type { BaseMessage } from "@langchain/core/messages";
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import type { ToolDefinition } from "@thinktank/codemode";
import { ScriptedChatModel } from "@thinktank/models";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, openPromptInspector, toolDefinition } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";

interface Call {
  readonly systemPrompt: string;
  readonly tools: readonly ToolDefinition[];
}

const reviewerBody = "You review drafts for the Acme house style. Answer with the three worst problems.";

/** The scripted model (the lead delegates to acme's reviewer; the reviewer answers), recording every call. */
class RecordingModel extends ScriptedChatModel {
  constructor(
    private readonly calls: Call[],
    private readonly bound: readonly StructuredToolInterface[] = [],
  ) {
    super({
      script: {
        rules: [
          { when: { system: "You review drafts" }, reply: "reviewed: three problems" },
          { when: { last_human: "^review", step: 0 }, tool_calls: [{ name: "task", args: { subagent_type: "reviewer", description: "review the draft", prompt: "Review the draft in the workspace." } }] },
        ],
        fallback: { reply: "lead done" },
      },
      toolNames: bound.map((tool) => tool.name),
    });
  }
  override bindTools(tools: BindToolsInput[]): RecordingModel {
    return new RecordingModel(this.calls, tools as StructuredToolInterface[]);
  }
  override async _generate(messages: BaseMessage[]) {
    this.calls.push({ systemPrompt: messages.find((message) => message.getType() === "system")?.text ?? "", tools: this.bound.map(toolDefinition) });
    return super._generate(messages);
  }
}

const day = new Date("2026-05-04T09:30:00Z");
let project: ProjectFixture;

beforeAll(async () => {
  project = await makeProjectFixture({
    script: "rules: []\n",
    config: ["sandbox:", "  warm_pool_size: 0", "subagents:", "  models:", "    sonnet: scripted"],
    files: {
      "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nbody\n",
      "plugins/installed/acme/.claude-plugin/plugin.json": JSON.stringify({ name: "acme", description: "Acme" }),
      // Read and Grep map to read_file and bash; WebFetch and the MCP tool match nothing here.
      "plugins/installed/acme/agents/reviewer.md": `---\nname: reviewer\ndescription: Reviews drafts for the Acme house style\ntools: Read, Grep, WebFetch, mcp__nowhere__lookup\n---\n${reviewerBody}\n`,
      "plugins/installed/acme/agents/writer.md": "---\nname: writer\ndescription: Writes Acme copy\nmodel: sonnet\n---\nYou write copy.\n",
      "plugins/installed/acme/agents/editor.md": "---\nname: editor\ndescription: Edits Acme copy\nmodel: opus\n---\nYou edit copy.\n",
    },
  });
}, 60_000);

afterAll(() => project?.cleanup());

const config = () => loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });

describe("inspect prompt with sub-agents", { timeout: 180_000 }, () => {
  it("--agent shows exactly what the sub-agent's first model call is sent, and which of its tools entries match nothing", async () => {
    const calls: Call[] = [];
    const server = await buildAgentServer(config(), { logger: false, clock: () => day, prepare: { createModel: () => new RecordingModel(calls) } });
    try {
      const port = await freePort();
      await server.app.listen({ host: "127.0.0.1", port });
      const client = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
      const values = (await client.runs.wait(null, "lead_agent", { input: { messages: [{ type: "human", content: "review my draft" }] } })) as { messages: { type: string; content: unknown }[] };
      expect(values.messages.at(-1)?.content).toBe("lead done");
      expect(String(values.messages.findLast((message) => message.type === "tool")?.content)).toContain("reviewed: three problems");
    } finally {
      await server.close();
    }
    const sent = calls.find((call) => call.systemPrompt.startsWith(reviewerBody));
    expect(sent).toBeDefined();

    const inspector = await openPromptInspector(config(), { now: day });
    try {
      const inspected = await inspector.inspectAgent("acme:reviewer");
      expect(inspected.agent).toMatchObject({ identity: "plugin:acme:reviewer", source: "plugin", plugin: "acme", tools: ["Read", "Grep", "WebFetch", "mcp__nowhere__lookup"] });
      expect(inspected.systemPrompt).toBe(sent?.systemPrompt);
      expect(inspected.tools).toEqual(sent?.tools);
      expect(inspected.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read_file", "bash"]));
      expect(inspected.tools.map((tool) => tool.name)).not.toContain("task");
      expect(inspected.unmatchedTools).toEqual(["WebFetch", "mcp__nowhere__lookup"]);
      expect(inspected.delegates).toBe(false);
      expect(inspected.systemPrompt.endsWith("Current date: 2026-05-04.")).toBe(true);
      expect(inspected.tokens.total).toBe(inspected.tokens.systemPrompt + inspected.tokens.tools);
      // No model in the file: the lead's.
      expect(inspected.model).toEqual({ name: "scripted", reason: "no model: the lead's model" });

      // The lead's prompt lists the agents in <subagent_system>; the lead has the task tool.
      const lead = await inspector.inspect();
      expect(lead.systemPrompt).toContain("<subagent_system>");
      expect(lead.systemPrompt).toMatch(/- reviewer: Reviews drafts for the Acme house style/);
      expect(lead.tools.map((tool) => tool.name)).toContain("task");
    } finally {
      await inspector.close();
    }
  });

  it("shows the model an agent's alias resolves to, and refuses an unknown agent as task would", async () => {
    const inspector = await openPromptInspector(config(), { now: day });
    try {
      expect((await inspector.inspectAgent("writer")).model).toEqual({ name: "scripted", reason: "model: sonnet, mapped by subagents.models.sonnet" });
      expect((await inspector.inspectAgent("editor")).model).toEqual({ name: "scripted", reason: "model: opus, not mapped in subagents.models: the lead's model" });
      const general = await inspector.inspectAgent("general-purpose");
      expect(general.agent.identity).toBe("builtin:general-purpose");
      expect(general.unmatchedTools).toEqual([]);
      // The lead's tools but request_human_input and task.
      expect(general.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read_file", "write_file", "bash", "view_skill"]));
      expect(general.tools.map((tool) => tool.name)).not.toContain("request_human_input");
      await expect(inspector.inspectAgent("reviewr")).rejects.toMatchObject({ code: "AGENT_NOT_FOUND", message: expect.stringContaining("plugin:acme:reviewer") });
    } finally {
      await inspector.close();
    }
  });
});
