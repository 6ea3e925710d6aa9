// The agent server process (apps/agent/src/start.ts) serves /mcp: checked with the official SDK client
// and with the CLI mode of @modelcontextprotocol/inspector (0.15.0: the newest whose engines allow Node 20).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { freePort, nodeArgsFor, repositoryRoot } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFolder, type ConfigFolder } from "../test-support/runtime-fixture.js";

const inspectorPackage = "@modelcontextprotocol/inspector@0.15.0";

interface AgentProcess {
  readonly url: string;
  stop(): Promise<void>;
}

async function startAgent(folder: ConfigFolder, env: Record<string, string>): Promise<AgentProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, nodeArgsFor(path.join(repositoryRoot(), "apps/agent/src/start.ts")), {
    cwd: folder.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", THINKTANK_CONFIG: folder.configPath, AGENT_PORT: String(port), THINKTANK_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the agent server did not start:\n${output}`)), 150_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes("listening on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the agent server exited (${code}):\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        child.once("exit", () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the agent server's /mcp endpoint", () => {
  let folder: ConfigFolder;
  let secured: AgentProcess;
  let open: AgentProcess;

  beforeAll(async () => {
    folder = configFolder({ everything: referenceStdioEntry("server-everything") });
    [secured, open] = await Promise.all([startAgent(folder, { THINKTANK_API_KEY: "agent-key" }), startAgent(folder, {})]);
  }, 200_000);

  afterAll(async () => {
    await Promise.all([secured?.stop(), open?.stop()]);
    folder?.cleanup();
  });

  it("serves the three tools to the SDK client, with THINKTANK_API_KEY enforced", async () => {
    const denied = new Client({ name: "test", version: "1" });
    await expect(denied.connect(new StreamableHTTPClientTransport(new URL(secured.url)))).rejects.toThrow();
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(secured.url), { requestInit: { headers: { "x-api-key": "agent-key" } } }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
      const run = await client.callTool({ name: "execute_code", arguments: { code: 'import { echo } from "servers/everything"; console.log(JSON.stringify(await echo({ message: "via the agent" })));' } });
      expect(run.structuredContent).toMatchObject({ exit_code: 0, stdout: expect.stringContaining("Echo: via the agent"), tools_called: [{ tool: "everything.echo", status: "ok" }] });
    } finally {
      await client.close();
    }
  }, 120_000);

  it("answers the inspector's CLI mode (tools/list and tools/call)", async () => {
    const list = await run("npx", ["-y", inspectorPackage, "--cli", open.url, "--transport", "http", "--method", "tools/list"], folder.root);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
    const call = await run("npx", ["-y", inspectorPackage, "--cli", open.url, "--transport", "http", "--method", "tools/call", "--tool-name", "search_tools", "--tool-arg", "query=echo a message", "--tool-arg", "limit=1"], folder.root);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain("echo");
  }, 300_000);
});
