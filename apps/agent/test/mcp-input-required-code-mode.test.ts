// A 2026-07-28 MCP tool that answers input_required, called from an execute_code program (code
// mode), end to end: a real agent server process, the real sandbox (bubblewrap where installed,
// else deno), a real v2 SDK server. The run pauses with request_human_input's interrupt; on resume
// the program runs again, the calls it made before the pause are answered from their record (the
// side-effecting `note` reaches the server once) and the call that asked gets the answer.
import fs from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { eraStdioEntry } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeAgentFixture, type AgentFixture } from "./support/agent-fixture.js";
import { startAgentProcess, type AgentProcess } from "./support/agent-process.js";

type Message = { type: string; content: unknown };
type Paused = { __interrupt__?: { value: { question?: string } }[]; messages?: Message[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });

// Each program notes a line before asking (a side effect), asks, and notes what came back (a
// wrapper returns a text result as the string).
const programs: Record<string, string> = {
  once: [
    'import { note, confirm } from "servers/modern";',
    'await note({ text: "once:before" });',
    'const answer = await confirm({ action: "deploy" });',
    "const text = String(answer);",
    'await note({ text: "once:after " + text });',
    'console.log("RESULT " + text);',
  ].join("\n"),
  twice: [
    'import { note, confirm } from "servers/modern";',
    'await note({ text: "twice:before" });',
    'const first = String(await confirm({ action: "build" }));',
    'await note({ text: "twice:between " + first });',
    'const second = String(await confirm({ action: "ship" }));',
    'console.log("RESULT " + first + " | " + second);',
  ].join("\n"),
  diverge: [
    'import { note, confirm } from "servers/modern";',
    'import fs from "node:fs";',
    // The workspace persists between the two executions: the second one notes something else.
    'const again = fs.existsSync("diverge-marker"); fs.writeFileSync("diverge-marker", "x");',
    'await note({ text: again ? "diverge:second" : "diverge:first" });',
    'const answer = String(await confirm({ action: "merge" }));',
    'console.log("RESULT " + answer);',
  ].join("\n"),
};

// `auto`: bubblewrap where it works (CI), else deno; `deno`: the Deno backend's bridge proxy, everywhere.
describe.each(["auto", "deno"])("input_required from an MCP tool called by an execute_code program (sandbox.backend: %s)", { timeout: 300_000 }, (backend) => {
  let made: AgentFixture;
  let agent: AgentProcess;
  let client: Client;
  let notesFile: string;

  beforeAll(async () => {
    made = await makeAgentFixture({
      configYaml: ["data_dir: data", "log:", "  level: warn", "code_execution:", "  mode: code", "sandbox:", `  backend: ${backend}`, "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ""].join("\n"),
    });
    notesFile = path.join(made.dir, "notes.txt");
    const rules = Object.entries(programs).flatMap(([name, code]) => [
      `  - id: ${name}`,
      `    when: { last_human: "^${name}$", step: 0, tool_available: execute_code }`,
      `    tool_calls: [{ name: execute_code, args: { code: ${JSON.stringify(code)} } }]`,
    ]);
    fs.writeFileSync(
      path.join(made.dir, "script.yaml"),
      ["name: input required in code mode", "rules:", ...rules, "  - id: done", "    when: { last_tool_name: execute_code }", '    reply: "{{lastToolResult}}"', "fallback:", '  reply: "no tool"', ""].join("\n"),
    );
    const entry = eraStdioEntry({ sdk: "v2", era: "modern" }, { notesFile });
    fs.writeFileSync(path.join(made.dir, "extensions_config.json"), `${JSON.stringify({ mcpServers: { modern: entry }, skills: {}, plugins: {}, tools: {} }, null, 2)}\n`);
    agent = await startAgentProcess(made.env);
    client = new Client({ apiUrl: agent.url, callerOptions: { maxRetries: 0 } });
  }, 300_000);

  afterAll(async () => {
    await agent?.stop();
    made?.cleanup();
  });

  const notes = (prefix: string): string[] => (fs.existsSync(notesFile) ? fs.readFileSync(notesFile, "utf8").split("\n").filter((line) => line.startsWith(prefix)) : []);

  async function start(name: string): Promise<{ threadId: string; question: string }> {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "lead_agent", { input: human(name) })) as Paused;
    if (!paused.__interrupt__) throw new Error(`the run did not pause: ${JSON.stringify(paused.messages?.at(-1))}`);
    return { threadId: thread.thread_id, question: paused.__interrupt__[0]?.value.question ?? "" };
  }

  async function resume(threadId: string, answer: unknown): Promise<Paused> {
    return (await client.runs.wait(threadId, "lead_agent", { command: { resume: answer } })) as Paused;
  }

  const executeResult = (values: Paused): { stdout: string; replay?: Record<string, unknown>; tools_called: { tool: string; replayed?: boolean }[] } =>
    JSON.parse(String(values.messages?.at(-1)?.content ?? "{}")) as never;

  it("pauses the run with the server's question; on resume the earlier call is replayed, not made again", async () => {
    const { threadId, question } = await start("once");
    expect(question).toBe("MCP server 'modern' asks, for tool 'confirm':\nReally deploy?\nAnswer with: ok (boolean).");
    expect((await client.threads.get(threadId)).status).toBe("interrupted");
    expect(notes("once:")).toEqual(["once:before"]);
    const result = executeResult(await resume(threadId, "yes"));
    expect(result.stdout, JSON.stringify(result)).toContain("RESULT done: deploy (state asked:deploy)");
    expect(notes("once:")).toEqual(["once:before", "once:after done: deploy (state asked:deploy)"]);
    expect(result.replay).toEqual({ replayed: 1, unused: 0 });
    expect(result.tools_called.map((call) => [call.tool, call.replayed === true])).toEqual([
      ["modern.note", true],
      ["modern.confirm", false],
      ["modern.note", false],
    ]);
    expect((await client.threads.get(threadId)).status).toBe("idle");
  });

  it("a rejection reaches the server as decline, and the program goes on with it", async () => {
    const { threadId } = await start("once");
    const before = notes("once:").length;
    const result = executeResult(await resume(threadId, { decisions: [{ type: "reject", message: "not now" }] }));
    expect(result.stdout, JSON.stringify(result)).toContain("RESULT not done: decline");
    expect(notes("once:").slice(before - 1)).toEqual(["once:before", "once:after not done: decline"]);
  });

  it("two input requests in one program: two pauses, every side effect once, both answers reach the server", async () => {
    const { threadId, question } = await start("twice");
    expect(question).toContain("Really build?");
    const second = await resume(threadId, "yes");
    expect(second.__interrupt__?.[0]?.value.question).toContain("Really ship?");
    expect(notes("twice:")).toEqual(["twice:before", "twice:between done: build (state asked:build)"]);
    const result = executeResult(await resume(threadId, { decisions: [{ type: "reject" }] }));
    expect(result.stdout, JSON.stringify(result)).toContain("RESULT done: build (state asked:build) | not done: decline");
    expect(notes("twice:")).toEqual(["twice:before", "twice:between done: build (state asked:build)"]);
    expect(result.replay).toEqual({ replayed: 3, unused: 0 });
  });

  it("a program that goes another way on resume makes its calls live and says so", async () => {
    const { threadId } = await start("diverge");
    const result = executeResult(await resume(threadId, "yes"));
    expect(result.stdout, JSON.stringify(result)).toContain("RESULT done: merge");
    expect(notes("diverge:")).toEqual(["diverge:first", "diverge:second"]);
    expect(result.replay).toMatchObject({ replayed: 0, unused: 1, diverged: { call: "modern.note", note: expect.stringContaining("with other arguments") } });
  });
});
