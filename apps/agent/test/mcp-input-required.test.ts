// A 2026-07-28 MCP tool that answers input_required (an elicitation), in direct mode, end to end: a
// real agent server process pauses the run with the same human-in-the-loop interrupt
// request_human_input makes, and the answer given on resume goes back to the server (a v2 SDK server).
import fs from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { eraStdioEntry } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeAgentFixture, type AgentFixture } from "./support/agent-fixture.js";
import { startAgentProcess, type AgentProcess } from "./support/agent-process.js";

type Message = { type: string; content: unknown };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const lastText = (values: { messages: Message[] }): string => String(values.messages.at(-1)?.content ?? "");

describe("input_required from a 2026-07-28 MCP tool", { timeout: 240_000 }, () => {
  let made: AgentFixture;
  let agent: AgentProcess;
  let client: Client;

  beforeAll(async () => {
    made = await makeAgentFixture({
      configYaml: ["data_dir: data", "log:", "  level: warn", "code_execution:", "  mode: direct", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ""].join("\n"),
    });
    fs.writeFileSync(
      path.join(made.dir, "script.yaml"),
      [
        "name: input required",
        "rules:",
        "  - id: deploy",
        '    when: { last_human: "^deploy", step: 0, tool_available: modern__confirm }',
        '    tool_calls: [{ name: modern__confirm, args: { action: "deploy" } }]',
        "  - id: done",
        "    when: { last_tool_name: modern__confirm }",
        '    reply: "Tool said: {{lastToolResult}}"',
        "fallback:",
        '  reply: "no tool"',
        "",
      ].join("\n"),
    );
    fs.writeFileSync(path.join(made.dir, "extensions_config.json"), `${JSON.stringify({ mcpServers: { modern: eraStdioEntry({ sdk: "v2", era: "modern" }) }, skills: {}, plugins: {}, tools: {} }, null, 2)}\n`);
    agent = await startAgentProcess(made.env);
    client = new Client({ apiUrl: agent.url, callerOptions: { maxRetries: 0 } });
  }, 240_000);

  afterAll(async () => {
    await agent?.stop();
    made?.cleanup();
  });

  async function ask(): Promise<{ threadId: string; value: Record<string, unknown> }> {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "lead_agent", { input: human("deploy") })) as { __interrupt__?: { value: Record<string, unknown> }[]; messages?: Message[] };
    if (!paused.__interrupt__) throw new Error(`the run did not pause: ${JSON.stringify(paused.messages?.at(-1))}`);
    return { threadId: thread.thread_id, value: paused.__interrupt__[0]?.value ?? {} };
  }

  it("pauses the run with the server's question, as request_human_input does, and sends the answer back on resume", async () => {
    const { threadId, value } = await ask();
    const question = "MCP server 'modern' asks, for tool 'confirm':\nReally deploy?\nAnswer with: ok (boolean).";
    expect(value).toEqual({
      question,
      action_requests: [{ name: "request_human_input", args: { question, answer: "" }, description: question }],
      review_configs: [{ action_name: "request_human_input", allowed_decisions: ["approve", "edit", "reject"] }],
    });
    expect((await client.threads.get(threadId)).status).toBe("interrupted");
    const resumed = (await client.runs.wait(threadId, "lead_agent", { command: { resume: "yes" } })) as { messages: Message[] };
    expect(lastText(resumed)).toBe("Tool said: done: deploy (state asked:deploy)");
    expect((await client.threads.get(threadId)).status).toBe("idle");
  });

  it("a rejection is sent to the server as decline", async () => {
    const { threadId } = await ask();
    const resumed = (await client.runs.wait(threadId, "lead_agent", { command: { resume: { decisions: [{ type: "reject", message: "not now" }] } } })) as { messages: Message[] };
    expect(lastText(resumed)).toBe("Tool said: not done: decline");
  });
});
