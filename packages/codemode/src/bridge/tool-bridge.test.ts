// The bridge against a real stdio MCP server (the test server) and the reference server-everything.
import http from "node:http";
import path from "node:path";
import { McpManager } from "@thinktank/mcp";
import { processAlive, referenceStdioEntry, testServerEntry } from "@thinktank/mcp/testing";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { CodeModeCatalog } from "../catalog/code-mode-catalog.js";
import { McpToolInvoker } from "../invoker/mcp-tool-invoker.js";
import { ArgumentValidator } from "./argument-validator.js";
import { ToolBridge } from "./tool-bridge.js";

interface Reply {
  status: number;
  body: { ok: boolean; isError?: boolean; structuredContent?: unknown; content?: unknown[]; error?: { code: string; message: string; problems?: string[] } };
}

function post(socketPath: string, body: string, headers: Record<string, string>, method = "POST", url = "/call"): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath, agent: false, path: url, method, headers: { "content-type": "application/json", ...headers } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Reply["body"] }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

let temp: ReturnType<typeof makeTempDir>;
let manager: McpManager;
let catalog: CodeModeCatalog;
let bridge: ToolBridge;
const call = (server: string, tool: string, args: unknown = {}, token = bridge.token) =>
  post(bridge.socketPath, JSON.stringify({ server, tool, arguments: args }), { authorization: `Bearer ${token}` });

beforeAll(async () => {
  temp = makeTempDir("tt-bridge-");
  manager = new McpManager(
    { mcp: { connect_timeout_ms: 30_000, call_timeout_ms: 3_000, retries: 1, retry_base_delay_ms: 20, catalog_dir: path.join(temp.dir, "catalog") }, env: { PATH: process.env.PATH } },
    { test: testServerEntry(), everything: referenceStdioEntry("server-everything"), off: { ...testServerEntry(), enabled: false } },
  );
  await manager.connectAll();
  catalog = new CodeModeCatalog({ invokers: [new McpToolInvoker(manager)], codeApiDir: path.join(temp.dir, "code-api"), defaultLimit: 10, maxLimit: 50, generate: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  catalog.refresh();
}, 60_000);

afterAll(async () => {
  await manager.close();
  temp.cleanup();
});

beforeEach(async () => {
  bridge = await ToolBridge.open({
    router: { find: (server) => catalog.invokerFor(server), serverNames: () => catalog.serverNames() },
    validator: new ArgumentValidator(),
    socketPath: path.join(temp.dir, "b.sock"),
    maxBodyBytes: 64 * 1024,
  });
});
afterEach(async () => bridge.close());

describe("ToolBridge", () => {
  it("calls a tool and passes structuredContent and content through, recording the call", async () => {
    const reply = await call("test", "echo", { text: "hello" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, isError: false, structuredContent: { echoed: "hello" }, content: [{ type: "text", text: "hello" }] });
    const weather = await call("everything", "get-structured-content", { location: "Chicago" });
    expect(weather.body.structuredContent).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    const { tools_called } = bridge.calls();
    expect(tools_called.map((record) => [record.tool, record.status])).toEqual([["test.echo", "ok"], ["everything.get-structured-content", "ok"]]);
    expect(tools_called[0]?.ms).toBeGreaterThan(0);
  });

  it("answers a tool's own error as ok:true, isError:true and records TOOL_ERROR", async () => {
    const reply = await call("test", "fail");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ ok: true, isError: true, content: [{ type: "text", text: expect.stringMatching(/^failure number \d+$/) }] });
    expect(bridge.calls().tools_called.at(-1)).toMatchObject({ tool: "test.fail", status: "error", error: { code: "TOOL_ERROR", message: expect.stringMatching(/^failure number/) } });
  });

  it("refuses a wrong or missing token with 401 and records nothing", async () => {
    expect(await call("test", "echo", { text: "x" }, "wrong")).toEqual({ status: 401, body: { ok: false, error: { code: "UNAUTHORIZED", message: expect.any(String) } } });
    expect((await post(bridge.socketPath, "{}", {})).status).toBe(401);
    expect(bridge.calls().tools_called).toEqual([]);
  });

  it("answers 404 for an unknown server, a disabled server and an unknown tool", async () => {
    const unknown = await call("nope", "echo", { text: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "MCP_SERVER_NOT_FOUND", message: expect.stringContaining("enabled: everything, test") });
    expect((await call("off", "echo", { text: "x" })).body.error?.code).toBe("MCP_SERVER_NOT_FOUND");
    const missing = await call("test", "no_such_tool");
    expect(missing.status).toBe(404);
    expect(missing.body.error?.code).toBe("MCP_TOOL_NOT_FOUND");
    expect(bridge.calls().tools_called.map((record) => record.error?.code)).toEqual(["MCP_SERVER_NOT_FOUND", "MCP_SERVER_NOT_FOUND", "MCP_TOOL_NOT_FOUND"]);
  });

  it("refuses invalid arguments with 400 and the ajv problems, before anything reaches the server", async () => {
    const pid = manager.statusOf("test").pid as number;
    // exit would kill the server if it ran; add_tool would add a tool.
    const exit = await call("test", "exit", { code: "not a number" });
    expect(exit.status).toBe(400);
    expect(exit.body.error).toMatchObject({ code: "VALIDATION_FAILED", problems: ["arguments/code: must be number"] });
    const add = await call("test", "add_tool", {});
    expect(add.body.error).toMatchObject({ code: "VALIDATION_FAILED", problems: ["arguments: missing required property 'name'"] });
    const sum = await call("everything", "get-sum", { a: "1", b: 2 });
    expect(sum.status).toBe(400);
    expect(processAlive(pid)).toBe(true);
    expect(manager.statusOf("test").pid).toBe(pid);
    expect((await manager.listTools("test")).map((tool) => tool.name)).not.toContain("undefined");
  });

  it("answers 400 for a body that is not JSON or not a call, 404 for other routes, 413 for a huge body", async () => {
    const auth = { authorization: `Bearer ${bridge.token}` };
    expect((await post(bridge.socketPath, "{not json", auth)).body.error?.code).toBe("INVALID_JSON");
    expect((await post(bridge.socketPath, JSON.stringify({ server: "test" }), auth)).body.error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("'tool'") });
    expect((await post(bridge.socketPath, JSON.stringify({ server: "test", tool: "echo", arguments: [1] }), auth)).body.error?.code).toBe("BAD_REQUEST");
    expect((await post(bridge.socketPath, "", auth, "GET", "/call")).status).toBe(404);
    expect((await post(bridge.socketPath, "{}", auth, "POST", "/other")).body.error?.code).toBe("NOT_FOUND");
    const huge = await post(bridge.socketPath, JSON.stringify({ server: "test", tool: "echo", arguments: { text: "x".repeat(100 * 1024) } }), auth);
    expect(huge.status).toBe(413);
  });

  it("runs at most maxConcurrentCalls calls at once; the others wait their turn", async () => {
    await bridge.close();
    bridge = await ToolBridge.open({
      router: { find: (server) => catalog.invokerFor(server), serverNames: () => catalog.serverNames() },
      validator: new ArgumentValidator(),
      socketPath: path.join(temp.dir, "b.sock"),
      maxConcurrentCalls: 2,
    });
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: 6 }, () => call("test", "slow", { ms: 300 })));
    // Three rounds of two: never less than 900 ms, however fast the machine.
    expect(performance.now() - started).toBeGreaterThanOrEqual(880);
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(bridge.calls().tools_called).toHaveLength(6);
  });

  it("stops answering and removes its socket when closed", async () => {
    await bridge.close();
    await expect(call("test", "echo", { text: "x" })).rejects.toThrow(/ENOENT|ECONNREFUSED/);
  });
});
