import fs from "node:fs";
import path from "node:path";
import { writeTree } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { makeAgentFixture } from "./support/agent-fixture.js";
import { startAgentProcess } from "./support/agent-process.js";
import { useSuiteProject } from "./support/suite-agent.js";

// Issue 6 end to end: hello_world registered through the gateway's API (a real `thinktank gateway`
// process), called by a run of the agent server (another process, scripted model), then deleted
// through the API: the next request no longer offers it.
const script = `
name: registered tools
rules:
  - id: greet
    when: { last_human: "^greet (\\\\S+)", step: 0, tool_available: hello_world }
    tool_calls:
      - name: hello_world
        args: { name: "{{match.1}}" }
  - id: greeted
    when: { last_tool_name: hello_world }
    reply: "The tool said: {{lastToolResult}}"
  - id: no-tool
    when: { last_human: "^greet" }
    reply: "I have no hello_world tool."
  - id: chain
    when: { last_human: "^shout in code (\\\\S+)", step: 0, tool_available: execute_code }
    tool_calls:
      - name: execute_code
        args:
          language: typescript
          code: "import { shout } from '/mnt/code-api/servers/tools/index.ts';\\nconst first = await shout({ text: '{{match.1}}' });\\nconst second = await shout({ text: first.text + '-again' });\\nconsole.log(second.text);"
  - id: chained
    when: { last_tool_name: execute_code }
    reply: "Code said: {{lastToolResult}}"
fallback:
  reply: "?"
`;

const config = [
  "data_dir: data",
  "log:",
  "  level: warn",
  "code_execution:",
  "  mode: code",
  "models:",
  "  default: scripted",
  "  providers:",
  "    scripted:",
  "      provider: scripted",
  "      script: tools-script.yaml",
  "",
].join("\n");

const helloWorld = {
  name: "hello_world",
  description: "Say hello: returns a friendly greeting for the given name.",
  input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  output_schema: { type: "object", properties: { greeting: { type: "string" } }, required: ["greeting"] },
  runtime: "python",
  script: 'import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"greeting": "Hello, " + args["name"] + "!"}))\n',
};

type Message = { type: string; content: unknown; tool_calls?: { name: string }[] };
const human = (content: string) => ({ messages: [{ type: "human", content }] });
const messagesOf = (values: unknown): Message[] => (values as { messages: Message[] }).messages;

const suite = useSuiteProject({ script, config: ["code_execution:", "  mode: code"], gateway: true });

describe("a registered tool in an agent run", { timeout: 120_000 }, () => {
  it("is offered on the next request after POST /api/tools, called by the model, logged, and gone after DELETE", async () => {
    const before = await suite.client.runs.wait((await suite.client.threads.create()).thread_id, "lead_agent", { input: human("greet Ada") });
    expect(messagesOf(before).at(-1)?.content).toBe("I have no hello_world tool.");

    const created = await fetch(`${suite.gateway.url}/api/tools`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(helloWorld) });
    expect(created.status).toBe(201);

    const thread = await suite.client.threads.create();
    const values = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("greet Ada") });
    const messages = messagesOf(values);
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(messages[1]?.tool_calls?.[0]?.name).toBe("hello_world");
    expect(JSON.parse(String(messages[2]?.content))).toEqual({ status: "success", data: { greeting: "Hello, Ada!" } });
    expect(messages[3]?.content).toBe('The tool said: {"status":"success","data":{"greeting":"Hello, Ada!"}}');

    const executions = (await (await fetch(`${suite.gateway.url}/api/tools/hello_world/executions`)).json()) as { executions: { source: string; thread_id: string; status: string }[] };
    expect(executions.executions[0]).toMatchObject({ source: "agent", thread_id: thread.thread_id, status: "success" });

    expect((await fetch(`${suite.gateway.url}/api/tools/hello_world`, { method: "DELETE" })).status).toBe(204);
    const after = await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human("greet Bob") });
    expect(messagesOf(after).at(-1)?.content).toBe("I have no hello_world tool.");
    expect(fs.readdirSync(path.join(suite.fixture.dir, "tools"))).toEqual([]);
  });
});

describe("a registered tool in an execute_code program", { timeout: 180_000 }, () => {
  it("is the server `tools` of the code API: a program chains two calls through the bridge", async () => {
    const shout = {
      name: "shout",
      description: "Upper-cases a text.",
      input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      output_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      runtime: "node",
      script: "const args = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify({ text: args.text.toUpperCase() }));\n",
    };
    expect((await fetch(`${suite.gateway.url}/api/tools`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(shout) })).status).toBe(201);
    const values = await suite.client.runs.wait((await suite.client.threads.create()).thread_id, "lead_agent", { input: human("shout in code hey") });
    const messages = messagesOf(values);
    const result = JSON.parse(String(messages.find((m) => m.type === "tool")?.content)) as { exit_code: number; stdout: string; stderr: string; tools_called: { tool: string; status: string }[] };
    expect(result, JSON.stringify(result)).toMatchObject({ exit_code: 0, stdout: "HEY-AGAIN\n" });
    expect(result.tools_called.map((call) => `${call.tool} ${call.status}`)).toEqual(["tools.shout ok", "tools.shout ok"]);
    const executions = (await (await fetch(`${suite.gateway.url}/api/tools/shout/executions`)).json()) as { executions: { source: string }[] };
    expect(executions.executions.map((e) => e.source)).toEqual(["code", "code"]);
  });
});

describe("a malformed registry at the agent's start-up", { timeout: 180_000 }, () => {
  it("stops the agent server process with a clear message", async () => {
    const broken = await makeAgentFixture({ configYaml: config });
    try {
      writeTree(broken.dir, {
        "tools-script.yaml": script,
        "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: { hello: { description: "x", input_schema: { type: "object" }, runtime: "ruby", script: "h.rb" } } }),
      });
      const error = await startAgentProcess(broken.env).then(
        async (started) => {
          await started.stop();
          return undefined;
        },
        (caught: unknown) => caught as Error,
      );
      expect(error?.message).toMatch(/exited with 1 before listening/);
      expect(error?.message).toMatch(/tools registry is malformed: tools\.hello\.runtime: must be one of "python", "node", "shell"/);
    } finally {
      broken.cleanup();
    }
  });
});
