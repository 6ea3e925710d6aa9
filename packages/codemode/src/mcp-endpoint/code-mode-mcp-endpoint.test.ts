// The /mcp endpoint on a Fastify app, driven by the official SDK client over streamable HTTP.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { referenceStdioEntry, testServerEntry } from "@thinktank/mcp/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeModeRuntime } from "../runtime/code-mode-runtime.js";
import { CodeModeMcpEndpoint } from "./code-mode-mcp-endpoint.js";
import { configFolder, type ConfigFolder } from "../test-support/runtime-fixture.js";

const apiKey = "test-key-123";

describe("the /mcp endpoint", () => {
  let folder: ConfigFolder;
  let app: FastifyInstance;
  let url: URL;
  const clients: Client[] = [];

  const connect = async (headers: Record<string, string> = { "x-api-key": apiKey }): Promise<Client> => {
    const client = new Client({ name: "endpoint-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    // search_tools waits for the servers' first connects within the grace: long enough for a loaded machine (the session's code loads with the first connect).
    folder = configFolder({ everything: referenceStdioEntry("server-everything"), test: testServerEntry() }, "  first_connect_grace_ms: 60000");
    const runtime = new CodeModeRuntime(folder.load({ THINKTANK_API_KEY: apiKey }));
    app = Fastify({ logger: false });
    runtime.mountMcpEndpoint(app);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    url = new URL(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await app?.close();
    folder?.cleanup();
  });

  it("lists exactly list_servers, search_tools and execute_code, with their schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
    const execute = tools.find((tool) => tool.name === "execute_code");
    expect(execute?.inputSchema).toMatchObject({ type: "object", required: ["code"], properties: { language: { enum: ["typescript", "javascript", "python"] } } });
    expect(client.getInstructions()).toContain("execute_code");
  });

  it("answers the three tools: servers, a search, and a program calling a server", async () => {
    const client = await connect();
    const servers = await client.callTool({ name: "list_servers", arguments: {} });
    expect((servers.structuredContent as { servers: { name: string }[] }).servers.map((server) => server.name)).toEqual(["everything", "test"]);
    const search = await client.callTool({ name: "search_tools", arguments: { query: "the sum of two numbers", detail: "full", limit: 1 } });
    expect(search.structuredContent).toMatchObject({ tools: [{ server: "everything", name: "get-sum", typescript_import: expect.stringContaining("getSum") }] });
    const run = await client.callTool({ name: "execute_code", arguments: { code: 'import { getSum } from "servers/everything"; console.log(JSON.stringify(await getSum({ a: 20, b: 22 })));' } });
    expect(run.isError).toBe(false);
    const result = JSON.parse((run.content as { text: string }[])[0]?.text ?? "{}") as { exit_code: number; stdout: string; tools_called: { tool: string }[] };
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toContain("42");
    expect(result.tools_called.map((call) => call.tool)).toEqual(["everything.get-sum"]);
  }, 120_000);

  it("reports failures as tool errors: an unknown server in search, a program that fails", async () => {
    const client = await connect();
    const search = await client.callTool({ name: "search_tools", arguments: { query: "x", server: "nope" } });
    expect(search.isError).toBe(true);
    expect((search.content as { text: string }[])[0]?.text).toMatch(/^MCP_SERVER_NOT_FOUND: /);
    const run = await client.callTool({ name: "execute_code", arguments: { code: "process.exit(3)", language: "javascript" } });
    expect(run.isError).toBe(true);
    expect(run.structuredContent).toMatchObject({ exit_code: 3 });
    const invalid = await client.callTool({ name: "execute_code", arguments: { code: "x", language: "cobol" } });
    expect(invalid.isError).toBe(true);
  }, 120_000);

  it("gives each session its own workspace", async () => {
    const [a, b] = [await connect(), await connect()];
    const write = 'import fs from "node:fs"; fs.writeFileSync("mine.txt", "a"); console.log("ok");';
    const read = 'import fs from "node:fs"; console.log(fs.existsSync("mine.txt"));';
    expect(((await a.callTool({ name: "execute_code", arguments: { code: write } })).structuredContent as { stdout: string }).stdout).toBe("ok\n");
    expect(((await a.callTool({ name: "execute_code", arguments: { code: read } })).structuredContent as { stdout: string }).stdout).toBe("true\n");
    expect(((await b.callTool({ name: "execute_code", arguments: { code: read } })).structuredContent as { stdout: string }).stdout).toBe("false\n");
  }, 120_000);

  it("needs the API key when THINKTANK_API_KEY is set (X-API-Key or Bearer)", async () => {
    await expect(connect({})).rejects.toThrow();
    await expect(connect({ "x-api-key": "wrong" })).rejects.toThrow();
    const bearer = await connect({ authorization: `Bearer ${apiKey}` });
    expect((await bearer.listTools()).tools).toHaveLength(3);
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("answers 404 for an unknown session and 400 for a first request that is not initialize", async () => {
    const headers = { "x-api-key": apiKey, "content-type": "application/json", accept: "application/json, text/event-stream" };
    const unknown = await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": "no-such-session" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(unknown.status).toBe(404);
    const noSession = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(noSession.status).toBe(400);
  });

  it("ends a session on DELETE", async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    const after = await fetch(url, { method: "POST", headers: { "x-api-key": apiKey, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    expect(after.status).toBe(404);
  });
});

describe("the /mcp endpoint of one server among several (THINKTANK_REPLICA)", () => {
  it("starts its session ids with the server's name, for the proxy to route by; refuses a name a header could not carry", async () => {
    const folder = configFolder({});
    const runtime = new CodeModeRuntime(folder.load({}), { mcpSessionPrefix: "agent-a" });
    const app = Fastify({ logger: false });
    runtime.mountMcpEndpoint(app);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    const client = new Client({ name: "endpoint-test", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`)));
      expect((client.transport as StreamableHTTPClientTransport).sessionId).toMatch(/^agent-a\.[0-9a-f-]{36}$/);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
    } finally {
      await client.close();
      await app.close();
      folder.cleanup();
    }
    expect(() => new CodeModeMcpEndpoint({ codeMode: runtime.codeMode, sessionIdPrefix: "a b\r\n" })).toThrow(/is not 1 to 64 letters/);
  });
});
