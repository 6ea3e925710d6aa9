// `thinktank inspect prompt` (inspectPrompt) against what the agent really sends: a scripted model
// records the system prompt and tool definitions of its first call in a run over the HTTP API.
import type { BaseMessage } from "@langchain/core/messages";
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig, type CodeExecutionMode } from "@thinktank/core";
import type { ToolDefinition } from "@thinktank/codemode";
import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { ScriptedChatModel } from "@thinktank/models";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, inspectPrompt, toolDefinition, type AgentServer } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";

interface Capture {
  systemPrompt?: string;
  tools?: ToolDefinition[];
}

/** The scripted model, recording the first call it answers: the system prompt and the bound tools' definitions. */
class RecordingModel extends ScriptedChatModel {
  constructor(
    private readonly capture: Capture,
    private readonly bound: readonly StructuredToolInterface[] = [],
  ) {
    super({ script: { rules: [], fallback: { reply: "recorded" } }, toolNames: bound.map((tool) => tool.name) });
  }
  override bindTools(tools: BindToolsInput[]): RecordingModel {
    return new RecordingModel(this.capture, tools as StructuredToolInterface[]);
  }
  override async _generate(messages: BaseMessage[]) {
    if (this.capture.systemPrompt === undefined) {
      this.capture.systemPrompt = messages.find((message) => message.getType() === "system")?.text;
      this.capture.tools = this.bound.map(toolDefinition);
    }
    return super._generate(messages);
  }
}

const day = new Date("2026-05-04T09:30:00Z");
let project: ProjectFixture;

beforeAll(async () => {
  project = await makeProjectFixture({
    script: "rules: []\n",
    config: ["sandbox:", "  warm_pool_size: 0"],
    extensions: { mcpServers: { everything: referenceStdioEntry("server-everything") } },
    files: {
      "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\nargument-hint: \"[topic]\"\n---\nbody\n",
      "plugins/installed/acme/.claude-plugin/plugin.json": JSON.stringify({ name: "acme", description: "Acme" }),
      "plugins/installed/acme/commands/greet.md": "---\ndescription: Greet someone\n---\nGreet $1.\n",
    },
  });
}, 60_000);

afterAll(() => project?.cleanup());

async function sentByAgent(mode: CodeExecutionMode): Promise<Capture> {
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  const effective = { ...config, code_execution: { ...config.code_execution, mode } };
  const capture: Capture = {};
  const server: AgentServer = await buildAgentServer(effective, { logger: false, clock: () => day, prepare: { createModel: () => new RecordingModel(capture) } });
  try {
    // MCP servers connect in the background; inspectPrompt waits for them, so the run must too (a loaded machine starts server-everything slowly).
    expect((await server.runtime.codeMode.manager.connectAll()).map((status) => [status.name, status.state])).toEqual([["everything", "connected"]]);
    const port = await freePort();
    await server.app.listen({ host: "127.0.0.1", port });
    const client = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
    const values = await client.runs.wait(null, "lead_agent", { input: { messages: [{ type: "human", content: "hello" }] } });
    expect((values as { messages: { content: unknown }[] }).messages.at(-1)?.content).toBe("recorded");
  } finally {
    await server.close();
  }
  return capture;
}

describe("inspectPrompt prints exactly what the agent sends on a new thread's first call", { timeout: 180_000 }, () => {
  for (const mode of ["direct", "code"] as const) {
    it(`in ${mode} mode`, async () => {
      const sent = await sentByAgent(mode);
      const inspected = await inspectPrompt(loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } }), { mode, now: day });
      expect(inspected.mode).toBe(mode);
      expect(inspected.systemPrompt).toBe(sent.systemPrompt);
      expect(inspected.tools).toEqual(sent.tools);
      const names = inspected.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["read_file", "write_file", "str_replace", "ls", "bash", "view_skill", "request_human_input"]));
      if (mode === "code") expect(names).toEqual(expect.arrayContaining(["list_servers", "search_tools", "execute_code"]));
      else expect(names.some((name) => name.startsWith("everything__"))).toBe(true);
      expect(inspected.systemPrompt).toContain("<name>notes</name>");
      expect(inspected.systemPrompt).toContain("/acme:greet: Greet someone");
      expect(inspected.systemPrompt.endsWith("Current date: 2026-05-04.")).toBe(true);
      expect(inspected.systemPrompt.includes("<code_execution>")).toBe(mode === "code");
      expect(inspected.tokens.total).toBe(inspected.tokens.systemPrompt + inspected.tokens.tools);
      expect(Object.keys(inspected.tokens.byTool)).toEqual(names);
    });
  }

  it("is byte-identical for identical input (provider prompt caching)", async () => {
    const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
    const [first, second] = [await inspectPrompt(config, { mode: "code", now: day }), await inspectPrompt(config, { mode: "code", now: new Date("2026-05-04T23:59:00Z") })];
    expect(second.systemPrompt).toBe(first.systemPrompt);
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
  });
});
