import fs from "node:fs";
import path from "node:path";
import { runningAgent, type McpStatusReport, type RecordedServer } from "@thinktank/mcp";
import { needs } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const configured = {
  theme: "kept",
  mcpServers: {
    github: { command: "npx", args: ["-y", "server-github", "--token", "ghp_0123456789abcdefghij0123"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", LOG: "debug" } },
    search: { type: "http", url: "https://search.example/mcp?api_key=live-key-123&region=eu", headers: { Authorization: "Bearer sk-live-abcdefghijklmnopqrstuvwx" }, enabled: false },
    legacy: { type: "sse", url: "https://legacy.example/sse", description: "Old server" },
  },
  skills: {},
  plugins: {},
  tools: {},
};

/** The state of every server while no agent server has written a status record (no agent in these tests). */
const noAgent = { status: "unknown", reason: expect.stringContaining("no agent server has reported") };
const switchedOff = { status: "disabled", reason: expect.stringContaining("switched off") };

describe("GET /api/mcp/servers", () => {
  it("lists configured servers with secrets masked, placeholders as written, and the ETag", async () => {
    gateway = await createTestGateway({ extensions: configured });
    const response = await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe((await gateway.deps.store.read()).etag);
    const { servers } = response.json() as { servers: Record<string, unknown>[] };
    expect(servers).toEqual([
      {
        name: "github",
        source: "config",
        transport: "stdio",
        enabled: true,
        config: { command: "npx", args: ["-y", "server-github", "--token", "[redacted]"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", LOG: "[redacted]" } },
        ...noAgent,
      },
      {
        name: "search",
        source: "config",
        transport: "http",
        enabled: false,
        config: { type: "http", url: "https://search.example/mcp?api_key=[redacted]&region=eu", headers: { Authorization: "[redacted]" }, enabled: false },
        ...switchedOff,
      },
      { name: "legacy", source: "config", transport: "sse", enabled: true, config: { type: "sse", url: "https://legacy.example/sse", description: "Old server" }, ...noAgent },
    ]);
    expect(response.body).not.toMatch(/ghp_0123|live-key-123|sk-live/);
  });

  it("adds plugin servers through deps.listPluginServers, masked the same way", async () => {
    gateway = await createTestGateway({
      extensions: configured,
      deps: { listPluginServers: async () => [{ name: "tools-plugin:db", plugin: "tools-plugin", entry: { command: "db-mcp", env: { DB_PASSWORD: "hunter2" } }, enabled: false }] },
    });
    const { servers } = (await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).json() as { servers: Record<string, unknown>[] };
    expect(servers.at(-1)).toEqual({ name: "tools-plugin:db", source: "plugin:tools-plugin", transport: "stdio", enabled: false, config: { command: "db-mcp", env: { DB_PASSWORD: "[redacted]" } }, ...switchedOff });
    const one = await gateway.app.inject({ method: "GET", url: "/api/mcp/servers/tools-plugin:db" });
    expect(one.json()).toMatchObject({ name: "tools-plugin:db", source: "plugin:tools-plugin" });
  });

  it("shows the live state the agents record, the replicas that disagree, and masks reasons", async () => {
    const now = new Date().toISOString();
    const record = (replica: string, servers: RecordedServer[]) => runningAgent({ format: 1, replica, pid: process.pid, host: "here", startedAt: now, heartbeatAt: now, heartbeatMs: 5000, servers, users: {} });
    const report: McpStatusReport = {
      agents: [],
      running: [
        record("agent-a", [{ name: "github", transport: "stdio", state: "connected", toolCount: 26, toolsFrom: "live", protocolVersion: "2025-11-25" }, { name: "legacy", transport: "sse", state: "idle" }]),
        record("agent-b", [{ name: "github", transport: "stdio", state: "unavailable", reason: "the server process exited (stderr: bad token ghp_0123456789abcdefghijABCDEF)", lastErrorAt: now, lastError: "the server process exited" }]),
      ],
    };
    gateway = await createTestGateway({ extensions: configured, deps: { mcpStatus: async () => report } });
    const { servers } = (await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).json() as { servers: Record<string, unknown>[] };
    const byName = new Map(servers.map((server) => [server.name, server]));
    expect(byName.get("github")).toMatchObject({
      status: "unavailable",
      reason: "on agent-b: the server process exited (stderr: bad token [redacted])",
      tool_count: 26,
      protocol_version: "2025-11-25",
      last_error_at: now,
      status_at: now,
      replicas: [
        { replica: "agent-a", status: "connected" },
        { replica: "agent-b", status: "unavailable", reason: "the server process exited (stderr: bad token [redacted])", last_error_at: now },
      ],
    });
    expect(byName.get("legacy")).toMatchObject({ status: "idle" });
    expect(byName.get("search")).toMatchObject(switchedOff);
  });

  it("shows a server of neither MCP era as unavailable with code PROTOCOL_UNSUPPORTED and the versions tried, through the response schema", async () => {
    const now = new Date().toISOString();
    const tried = ["2026-07-28 (server/discover)", "2025-11-25 (initialize)"];
    const reason = "PROTOCOL_UNSUPPORTED: the server speaks no MCP protocol version Thinktank speaks (tried 2026-07-28 (server/discover), 2025-11-25 (initialize); it offers 2099-01-01)";
    const servers: RecordedServer[] = [{ name: "github", transport: "stdio", state: "unavailable", reason, code: "PROTOCOL_UNSUPPORTED", versionsTried: tried, versionsOffered: ["2099-01-01"], lastErrorAt: now, lastError: reason }];
    const report: McpStatusReport = { agents: [], running: [runningAgent({ format: 1, replica: "agent-a", pid: process.pid, host: "here", startedAt: now, heartbeatAt: now, heartbeatMs: 5000, servers, users: {} })] };
    gateway = await createTestGateway({ extensions: configured, deps: { mcpStatus: async () => report } });
    const listed = (await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).json() as { servers: Record<string, unknown>[] };
    expect(listed.servers.find((server) => server.name === "github")).toMatchObject({ status: "unavailable", reason, code: "PROTOCOL_UNSUPPORTED", versions_tried: tried, versions_offered: ["2099-01-01"] });
  });

  it("shows one server, or 404 MCP_SERVER_NOT_FOUND", async () => {
    gateway = await createTestGateway({ extensions: configured });
    expect((await gateway.app.inject({ method: "GET", url: "/api/mcp/servers/legacy" })).json()).toMatchObject({ name: "legacy", transport: "sse" });
    const missing = await gateway.app.inject({ method: "GET", url: "/api/mcp/servers/nope" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: "MCP_SERVER_NOT_FOUND" });
  });
});

describe("PUT /api/mcp/servers/:name", () => {
  it("creates (201) then replaces (200), keeps placeholders and unknown keys in the file, and answers with the new ETag", async () => {
    gateway = await createTestGateway({ extensions: configured });
    const entry = { command: "uvx", args: ["mcp-server-fetch"], env: { API_KEY: "${FETCH_KEY}" }, custom_field: { x: 1 } };
    const created = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/fetch", payload: entry });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ name: "fetch", source: "config", transport: "stdio", enabled: true, config: entry });
    const written = JSON.parse(fs.readFileSync(gateway.file, "utf8")) as Record<string, Record<string, unknown>>;
    expect(written.mcpServers?.fetch).toEqual(entry);
    expect(written.theme).toBe("kept");
    expect(created.headers.etag).toBe((await gateway.deps.store.read()).etag);
    expect(created.headers.etag).toMatch(/^"1-/);

    const replaced = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/fetch", payload: { type: "streamable-http", url: "https://fetch.example/mcp" } });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ transport: "http" });
    expect(replaced.headers.etag).toMatch(/^"2-/);
  });

  it("honours If-Match (412 when stale, nothing written) and If-None-Match: *", async () => {
    gateway = await createTestGateway({ extensions: configured });
    const { etag } = await gateway.deps.store.read();
    const ok = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", headers: { "if-match": etag }, payload: { command: "a" } });
    expect(ok.statusCode).toBe(201);
    const before = fs.readFileSync(gateway.file, "utf8");
    const stale = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/b", headers: { "if-match": etag }, payload: { command: "b" } });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ code: "PRECONDITION_FAILED", details: { etag: ok.headers.etag } });
    expect(fs.readFileSync(gateway.file, "utf8")).toBe(before);
    const createOnly = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", headers: { "if-none-match": "*" }, payload: { command: "again" } });
    expect(createOnly.statusCode).toBe(412);
    const fresh = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/c", headers: { "if-none-match": "*" }, payload: { command: "c" } });
    expect(fresh.statusCode).toBe(201);
  });

  it.each([
    [{ args: ["x"] }, "body.command"],
    [{ type: "sse" }, "body.url"],
    [{ type: "http", url: "ftp://x" }, "body.url"],
    // Fastify's default coercion turns a lone string into a one-item list (and "true" into true).
    [{ command: "x", args: "not-a-list-but-coerced-to-one" }, undefined],
    [{ command: "" }, "body.command"],
    [{ command: "x", enabled: "sometimes" }, "body.enabled"],
    [{ command: "x", sandbox: "yes" }, "body.sandbox"],
    [{ command: "x", sandbox: true, network: ["https://api.github.com/"] }, "body.network.0"],
    [{ command: "x", sandbox: true, network: ["api.github.com", "*.example.com:443", "127.0.0.1:8080"] }, undefined],
  ])("validates %j (400 with the field path, file untouched)", async (payload, path) => {
    gateway = await createTestGateway({ extensions: configured });
    const before = fs.readFileSync(gateway.file, "utf8");
    const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/z", payload });
    if (path === undefined) {
      expect(response.statusCode).toBe(201);
      return;
    }
    expect(response.statusCode).toBe(400);
    const body = response.json() as { code: string; details: { problems: { path: string }[] } };
    expect(body.code).toBe("VALIDATION_FAILED");
    expect(body.details.problems[0]?.path).toBe(path);
    expect(fs.readFileSync(gateway.file, "utf8")).toBe(before);
  });

  it("refuses a body that is not an object", async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/z", headers: { "content-type": "application/json" }, payload: "[1,2]" });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_FAILED" });
  });
});

describe("a stdio server marked sandbox: true", () => {
  const plugin = (dir: string): void => {
    const root = path.join(dir, "plugins", "installed", "tap");
    fs.mkdirSync(path.join(root, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "tap" }));
    fs.writeFileSync(path.join(root, ".mcp.json"), JSON.stringify({ mcpServers: { probe: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } } }));
  };

  it("is unavailable with the reason where the sandbox backend runs no server (deno), configured or a plugin's under host_programs: sandbox", async () => {
    const sandboxed = { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], sandbox: true, network: ["registry.npmjs.org"] };
    gateway = await createTestGateway({ configYaml: "sandbox:\n  backend: deno\nplugins:\n  host_programs: sandbox\n", extensions: { ...configured, mcpServers: { ...configured.mcpServers, memory: sandboxed } } });
    plugin(gateway.dir);
    const { servers } = (await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).json() as { servers: Record<string, unknown>[] };
    const byName = new Map(servers.map((server) => [server.name, server]));
    expect(byName.get("memory")).toMatchObject({ transport: "stdio", config: sandboxed, status: "unavailable", reason: expect.stringMatching(/deno, which cannot run host programs.*never runs on the host instead/) });
    expect(byName.get("tap:probe")).toMatchObject({ status: "unavailable", reason: expect.stringMatching(/deno/) });
    // A server on the host is not affected.
    expect(byName.get("github")).toMatchObject(noAgent);
    expect((await gateway.app.inject({ method: "GET", url: "/api/plugins/tap" })).json()).toMatchObject({ servers: [expect.objectContaining({ status: "unavailable", reason: expect.stringMatching(/deno/) })] });
  });

  it("is listed as any server where the backend runs it (bubblewrap): its state is the agent's", needs("bubblewrap"), async () => {
    gateway = await createTestGateway({ configYaml: "sandbox:\n  backend: bubblewrap\nplugins:\n  host_programs: sandbox\n", extensions: { ...configured, mcpServers: { memory: { command: "npx", sandbox: true } } } });
    plugin(gateway.dir);
    const { servers } = (await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).json() as { servers: Record<string, unknown>[] };
    expect(servers.find((server) => server.name === "memory")).toMatchObject(noAgent);
    expect(servers.find((server) => server.name === "tap:probe")).toMatchObject(noAgent);
  });
});

describe("DELETE /api/mcp/servers/:name", () => {
  it("removes a server (204 with the new ETag) and answers 404 MCP_SERVER_NOT_FOUND for an absent one", async () => {
    gateway = await createTestGateway({ extensions: configured });
    const removed = await gateway.app.inject({ method: "DELETE", url: "/api/mcp/servers/legacy" });
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe("");
    expect(removed.headers.etag).toBe((await gateway.deps.store.read()).etag);
    expect(Object.keys((await gateway.deps.store.read()).document.mcpServers)).toEqual(["github", "search"]);
    const again = await gateway.app.inject({ method: "DELETE", url: "/api/mcp/servers/legacy" });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ code: "MCP_SERVER_NOT_FOUND", details: { name: "legacy" } });
    const stale = await gateway.app.inject({ method: "DELETE", url: "/api/mcp/servers/github", headers: { "if-match": '"0-0000000000000000"' } });
    expect(stale.statusCode).toBe(412);
  });
});
