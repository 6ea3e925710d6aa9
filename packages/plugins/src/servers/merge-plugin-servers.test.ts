import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { McpManager } from "@thinktank/mcp";
import { corpusDir, makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { loadPlugin } from "../load-plugin.js";
import { mergePluginServers } from "./merge-plugin-servers.js";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function pluginWithServers(name: string, servers: Record<string, unknown>): ReturnType<typeof loadPlugin> {
  const temp = makeTempDir();
  cleanups.push(temp.cleanup);
  const root = path.join(temp.dir, name);
  writeTree(root, { ".mcp.json": JSON.stringify({ mcpServers: servers }) });
  return loadPlugin(root);
}

describe("mergePluginServers", () => {
  it("namespaces servers as <plugin>:<server> and expands ${CLAUDE_PLUGIN_ROOT} in memory", () => {
    const plugin = pluginWithServers("tools", {
      local: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.js", "--data", "${DATA_DIR:-/tmp/data}"], env: { TOKEN: "${TOKEN}" } },
      remote: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
    });
    const merge = mergePluginServers([plugin], { env: { TOKEN: "t", HOST: "example.com", API_TOKEN: "secret" } });
    expect(Object.keys(merge.entries)).toEqual(["tools:local", "tools:remote"]);
    expect(merge.entries["tools:local"]).toEqual({
      command: "node",
      args: [`${plugin.root}/server.js`, "--data", "${DATA_DIR:-/tmp/data}"],
      env: { CLAUDE_PLUGIN_ROOT: plugin.root, TOKEN: "${TOKEN}" },
      cwd: plugin.root,
    });
    expect(merge.entries["tools:remote"]).toEqual({ type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } });
    expect(merge.servers.map((s) => s.status)).toEqual(["available", "available"]);
    expect(merge.servers[0]?.declared).toEqual({ command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.js", "--data", "${DATA_DIR:-/tmp/data}"], env: { TOKEN: "${TOKEN}" } });
    const onDisk = fs.readFileSync(path.join(plugin.root, ".mcp.json"), "utf8");
    expect(onDisk).toContain("${CLAUDE_PLUGIN_ROOT}");
  });

  it("lists unusable servers as unavailable with the reason and keeps the others", () => {
    const plugin = pluginWithServers("mixed", {
      "google calendar": { type: "http", url: "" },
      needsToken: { type: "sse", url: "https://x/sse", headers: { Authorization: "Bearer ${MISSING_TOKEN}" } },
      weird: { type: "websocket", url: "wss://x" },
      nothing: {},
      fine: { type: "http", url: "https://fine.example/mcp" },
    });
    const merge = mergePluginServers([plugin], { env: {} });
    expect(merge.servers.map((s) => [s.name, s.status, s.reason])).toEqual([
      ["mixed:google calendar", "unavailable", "'url' is empty"],
      ["mixed:needsToken", "unavailable", "environment variable $MISSING_TOKEN is not set"],
      ["mixed:weird", "unavailable", "unknown transport type 'websocket' (expected stdio, sse or http)"],
      ["mixed:nothing", "unavailable", "a stdio server needs a 'command'"],
      ["mixed:fine", "available", undefined],
    ]);
    expect(merge.entries["mixed:google calendar"]?.unavailable_reason).toBe("'url' is empty");
    expect(merge.entries["mixed:fine"]?.unavailable_reason).toBeUndefined();
  });

  it("lets a configured server of the same name win and reports the clash", () => {
    const plugin = pluginWithServers("sales", { slack: { type: "http", url: "https://plugin.example" }, hubspot: { type: "http", url: "https://h" } });
    const merge = mergePluginServers([plugin], { env: {}, configured: { "sales:slack": { type: "http", url: "https://configured.example" } } });
    expect(Object.keys(merge.entries)).toEqual(["sales:hubspot"]);
    expect(merge.conflicts).toEqual([
      { name: "sales:slack", plugin: "sales", server: "slack", message: "plugin 'sales' server 'slack' is not used: a configured server is named 'sales:slack'" },
    ]);
    expect(merge.servers[0]?.status).toBe("shadowed");
  });

  it("merges the 153 corpus servers: empty URLs and unset tokens unavailable, none breaking the rest", needs("corpus"), () => {
    const root = path.join(corpusDir(), "knowledge-work-plugins");
    const marketplace = JSON.parse(fs.readFileSync(path.join(root, ".claude-plugin/marketplace.json"), "utf8")) as { plugins: { source: unknown }[] };
    const folders = marketplace.plugins.map((p) => p.source).filter((s): s is string => typeof s === "string");
    const plugins = folders.map((f) => loadPlugin(path.join(root, f)));
    const merge = mergePluginServers(plugins, { env: { PATH: process.env.PATH } });
    expect(merge.servers).toHaveLength(153);
    const unavailable = merge.servers.filter((s) => s.status === "unavailable");
    expect(unavailable.filter((s) => s.reason === "'url' is empty")).toHaveLength(32);
    expect(unavailable.filter((s) => s.reason !== "'url' is empty").map((s) => [s.name, s.reason])).toEqual([
      ["zoom-plugin:zoom-mcp", "environment variable $ZOOM_MCP_ACCESS_TOKEN is not set"],
      ["zoom-plugin:zoom-docs-mcp", "environment variable $ZOOM_DOCS_MCP_ACCESS_TOKEN is not set"],
      ["zoom-plugin:zoom-whiteboard-mcp", "environment variable $ZOOM_WHITEBOARD_MCP_ACCESS_TOKEN is not set"],
    ]);
    expect(Object.keys(merge.entries)).toHaveLength(153);
    expect(merge.entries["pdf-viewer:pdf"]).toMatchObject({ command: "npx", args: ["-y", "@modelcontextprotocol/server-pdf", "--stdio"] });
    expect(merge.entries["small-business:google drive"]).toMatchObject({ type: "http", url: "" });
    const tokens = { ZOOM_MCP_ACCESS_TOKEN: "a", ZOOM_DOCS_MCP_ACCESS_TOKEN: "b", ZOOM_WHITEBOARD_MCP_ACCESS_TOKEN: "c" };
    expect(mergePluginServers(plugins, { env: tokens }).servers.filter((s) => s.status === "unavailable")).toHaveLength(32);
  });

  it("hands the MCP manager entries it connects for real (a stdio server started from the plugin folder)", async () => {
    const temp = makeTempDir();
    cleanups.push(temp.cleanup);
    const require = createRequire(import.meta.url);
    const memoryServer = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
    const root = path.join(temp.dir, "memplug");
    writeTree(root, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "memplug" }),
      "launch.mjs": "await import(process.env.SERVER_JS);\n",
      ".mcp.json": JSON.stringify({
        memory: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/launch.mjs"], env: { SERVER_JS: "${MEMORY_SERVER_JS}", MEMORY_FILE_PATH: "${CLAUDE_PLUGIN_ROOT}/memory.jsonl" } },
        broken: { type: "http", url: "" },
      }),
    });
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, MEMORY_SERVER_JS: memoryServer };
    const merge = mergePluginServers([loadPlugin(root)], { env });
    const manager = new McpManager(
      { mcp: { connect_timeout_ms: 60_000, call_timeout_ms: 60_000, retries: 1, retry_base_delay_ms: 50, catalog_dir: path.join(temp.dir, "catalog") }, env },
      merge.entries,
    );
    cleanups.push(() => manager.close());
    const tools = await manager.listTools("memplug:memory");
    expect(tools.map((t) => t.name)).toContain("create_entities");
    await manager.callTool("memplug:memory", "create_entities", { entities: [{ name: "Acme", entityType: "company", observations: ["customer"] }] });
    expect(fs.readFileSync(path.join(root, "memory.jsonl"), "utf8")).toContain("Acme");
    const broken = await manager.connect("memplug:broken");
    expect(broken).toMatchObject({ state: "unavailable", reason: "'url' is empty" });
  }, 120_000);

  it("shows the exact program a stdio server runs; with host_programs deny or sandbox (no sandboxed stdio here) never spawns one", async () => {
    const temp = makeTempDir();
    cleanups.push(temp.cleanup);
    const marker = path.join(temp.dir, "ran");
    const root = path.join(temp.dir, "runner");
    writeTree(root, { ".mcp.json": JSON.stringify({ mcpServers: {
      local: { command: "node", args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`, "--", "--token", "tok-0123456789abcdef"] },
      remote: { type: "http", url: "https://example.com/mcp" },
    } }) });
    const plugin = loadPlugin(root);
    const allowed = mergePluginServers([plugin], { env: {} });
    expect(allowed.servers[0]).toMatchObject({ status: "available", program: { command: "node", args: ["-e", expect.stringContaining("writeFileSync"), "--", "--token", "tok-0123456789abcdef"], cwd: root } });
    expect(allowed.servers[1]?.program).toBeUndefined();

    const denied = mergePluginServers([plugin], { env: {}, hostPrograms: "deny" });
    expect(denied.servers.map((s) => [s.name, s.status])).toEqual([["runner:local", "denied"], ["runner:remote", "available"]]);
    expect(denied.servers[0]?.reason).toMatch(/plugins\.host_programs is 'deny'/);
    const manager = new McpManager({ mcp: { connect_timeout_ms: 10_000, call_timeout_ms: 10_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") }, env: {} }, denied.entries);
    cleanups.push(() => manager.close());
    expect(await manager.connect("runner:local")).toMatchObject({ state: "unavailable", reason: expect.stringMatching(/host_programs is 'deny'/) });
    expect(fs.existsSync(marker)).toBe(false);

    // sandbox: the entry says so, and a manager that cannot run it sandboxed leaves it unavailable, never unconfined.
    const sandboxed = mergePluginServers([plugin], { env: {}, hostPrograms: "sandbox" });
    expect(sandboxed.servers.map((s) => [s.name, s.status])).toEqual([["runner:local", "unavailable"], ["runner:remote", "available"]]);
    expect(sandboxed.servers[0]).toMatchObject({ entry: { sandbox: true }, reason: expect.stringContaining("given no way to run stdio MCP servers in the sandbox"), program: { command: "node" } });
    expect(sandboxed.entries["runner:remote"]).not.toHaveProperty("sandbox");
    // Where the sandbox says it runs no server (the deno backend), its reason; where it does, available.
    const onDeno = mergePluginServers([plugin], { env: {}, hostPrograms: "sandbox", sandboxedStdio: { ok: false, reason: "the sandbox backend here is deno" } });
    expect(onDeno.servers[0]).toMatchObject({ status: "unavailable", reason: "the sandbox backend here is deno" });
    expect(mergePluginServers([plugin], { env: {}, hostPrograms: "sandbox", sandboxedStdio: { ok: true } }).servers[0]).toMatchObject({ status: "available", entry: { sandbox: true } });
    const confined = new McpManager({ mcp: { connect_timeout_ms: 10_000, call_timeout_ms: 10_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog3") }, env: {} }, sandboxed.entries);
    cleanups.push(() => confined.close());
    expect(await confined.connect("runner:local")).toMatchObject({ state: "unavailable", reason: expect.stringContaining("never runs on the host instead") });
    expect(fs.existsSync(marker)).toBe(false);
    // The same entries allowed do run the program (so the check above could fail).
    const running = new McpManager({ mcp: { connect_timeout_ms: 10_000, call_timeout_ms: 10_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog2") }, env: {} }, allowed.entries);
    cleanups.push(() => running.close());
    await running.connect("runner:local");
    expect(fs.existsSync(marker)).toBe(true);
  });
});
