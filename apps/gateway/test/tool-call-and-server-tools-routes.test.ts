import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

// The two routes the console's tools and servers pages added: calling a registered tool once
// (POST /api/tools/:name/call) and one MCP server's cached tools (GET /api/mcp/servers/:name/tools).
const key = "test-key-123";
const admin = { "x-api-key": key };
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const echo = {
  name: "echo_args",
  description: "Echo the arguments back",
  input_schema: { type: "object", properties: { name: { type: "string" }, times: { type: "integer" } }, required: ["name"], additionalProperties: false },
  runtime: "node",
  script: "let t='';process.stdin.on('data',d=>t+=d).on('end',()=>{const a=JSON.parse(t);process.stdout.write(JSON.stringify({said:a.name.repeat(a.times??1)}))});\n",
  timeout: 20,
};

async function userKey(test: TestGateway, name: string): Promise<string> {
  const created = await test.app.inject({ method: "POST", url: "/api/users", headers: admin, payload: { name, role: "user" } });
  expect(created.statusCode).toBe(201);
  return created.json<{ api_key: string }>().api_key;
}

describe("POST /api/tools/:name/call", () => {
  it("runs the tool with checked arguments, answers its response as 200 either way, and logs the call with source api", async () => {
    gateway = await createTestGateway({ apiKey: key });
    const { app } = gateway;
    expect((await app.inject({ method: "POST", url: "/api/tools", headers: admin, payload: echo })).statusCode).toBe(201);
    const user = { "x-api-key": await userKey(gateway, "ada") };

    const ok = await app.inject({ method: "POST", url: "/api/tools/echo_args/call", headers: user, payload: { arguments: { name: "<b>hi</b>", times: 2 } } });
    expect([ok.statusCode, ok.json()]).toEqual([200, { status: "success", data: { said: "<b>hi</b><b>hi</b>" } }]);

    const bad = await app.inject({ method: "POST", url: "/api/tools/echo_args/call", headers: user, payload: { arguments: { times: "x" } } });
    expect(bad.statusCode).toBe(200);
    expect(bad.json()).toMatchObject({ status: "error", error: { code: expect.stringMatching(/INVALID|VALIDATION/) } });

    const missing = await app.inject({ method: "POST", url: "/api/tools/no_such_tool/call", headers: user, payload: {} });
    expect(missing.json()).toMatchObject({ status: "error", error: { code: "TOOL_NOT_FOUND" } });

    // A caller without credentials may not run anything.
    expect((await app.inject({ method: "POST", url: "/api/tools/echo_args/call", payload: { arguments: { name: "x" } } })).statusCode).toBe(401);

    const log = await app.inject({ method: "GET", url: "/api/tools/echo_args/executions", headers: admin });
    const executions = log.json<{ executions: { status: string; source?: string }[] }>().executions;
    expect(executions.map((execution) => [execution.status, execution.source])).toEqual([
      ["error", "api"],
      ["success", "api"],
    ]);
    const audit = await app.inject({ method: "GET", url: "/api/audit?action=tool.call", headers: admin });
    expect(audit.json<{ entries: { target: string; outcome: string }[] }>().entries.map((entry) => [entry.target, entry.outcome])).toEqual([
      ["no_such_tool", "failed"],
      ["echo_args", "failed"],
      ["echo_args", "ok"],
    ]);
  }, 60_000);
});

describe("GET /api/mcp/servers/:name/tools", () => {
  it("answers a shared server's cached list, an empty list with a note before any, and 404 for a server the caller cannot see", async () => {
    gateway = await createTestGateway({
      apiKey: key,
      extensions: { mcpServers: { files: { command: "node", args: ["x.js"] }, fresh: { type: "http", url: "http://127.0.0.1:9/mcp" } }, skills: {}, plugins: {}, tools: {} },
    });
    const { app, config } = gateway;
    fs.mkdirSync(config.mcp.catalog_dir, { recursive: true });
    const tools = [{ name: "read_file", description: "Read <img src=x onerror=alert(1)> a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }];
    fs.writeFileSync(path.join(config.mcp.catalog_dir, "files.json"), JSON.stringify({ server: "files", tools, configHash: "h", fetchedAt: "2030-01-01T00:00:00.000Z", transport: "stdio" }));

    const listed = await app.inject({ method: "GET", url: "/api/mcp/servers/files/tools", headers: admin });
    expect(listed.json()).toEqual({ server: "files", tools, fetched_at: "2030-01-01T00:00:00.000Z" });
    expect((await app.inject({ method: "GET", url: "/api/mcp/servers/fresh/tools", headers: admin })).json()).toMatchObject({ server: "fresh", tools: [], note: expect.stringContaining("not listed yet") });
    const unknown = await app.inject({ method: "GET", url: "/api/mcp/servers/nope/tools", headers: admin });
    expect([unknown.statusCode, unknown.json<{ code: string }>().code]).toEqual([404, "MCP_SERVER_NOT_FOUND"]);

    // A user's own server: theirs alone (another user gets 404), never from the shared cache.
    const ada = { "x-api-key": await userKey(gateway, "ada") };
    const bob = { "x-api-key": await userKey(gateway, "bob") };
    expect((await app.inject({ method: "PUT", url: "/api/mcp/servers/notes", headers: ada, payload: { type: "http", url: "http://127.0.0.1:9/mcp" } })).statusCode).toBe(201);
    expect((await app.inject({ method: "GET", url: "/api/mcp/servers/~notes/tools", headers: ada })).json()).toMatchObject({ server: "~notes", tools: [] });
    expect((await app.inject({ method: "GET", url: "/api/mcp/servers/~notes/tools", headers: bob })).statusCode).toBe(404);
  });
});
