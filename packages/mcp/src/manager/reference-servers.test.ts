import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { freePort, makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCatalog } from "../catalog/read-catalog.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { McpManager } from "./mcp-manager.js";
import { referenceStdioEntry, startEverythingOverHttp } from "./testing/reference-servers.js";
import type { RunningHttpServer } from "./testing/reference-servers.js";

// The reference servers from npm (@modelcontextprotocol/server-everything, -filesystem, -memory),
// as real processes over real transports.
let temp: { dir: string; cleanup: () => void };
let manager: McpManager | undefined;
let remotes: RunningHttpServer[] = [];
beforeEach(() => {
  temp = makeTempDir("tt-mcp-reference-");
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  await Promise.all(remotes.map((remote) => remote.kill().catch(() => undefined)));
  remotes = [];
  temp.cleanup();
});

function makeManager(entries: Record<string, McpServerEntry>, settings: { retries?: number } = {}): McpManager {
  manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: settings.retries ?? 3, retry_base_delay_ms: 20, catalog_dir: path.join(temp.dir, "catalog") },
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
    entries,
  );
  return manager;
}

const textOf = (result: { content: unknown }): string => ((result.content as { text?: string }[])[0]?.text ?? "");

async function start(mode: "sse" | "streamableHttp", port?: number): Promise<RunningHttpServer> {
  const remote = await startEverythingOverHttp(mode, port ?? (await freePort()));
  remotes.push(remote);
  return remote;
}

describe("reference servers", () => {
  it("server-everything, -filesystem and -memory over stdio, side by side: list, call, structuredContent, one process each", async () => {
    const files = path.join(temp.dir, "files");
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, "hello.txt"), "hello from a temp folder\n");
    const mcp = makeManager({
      everything: referenceStdioEntry("server-everything"),
      filesystem: referenceStdioEntry("server-filesystem", [files]),
      memory: referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: path.join(temp.dir, "memory.jsonl") }),
    });
    const statuses = await mcp.connectAll({ concurrency: 3 });
    expect(statuses.map((s) => [s.name, s.state])).toEqual([
      ["everything", "connected"],
      ["filesystem", "connected"],
      ["memory", "connected"],
    ]);
    const pids = statuses.map((s) => s.pid);

    const everythingTools = (await mcp.listTools("everything")).map((t) => t.name);
    expect(everythingTools).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content"]));
    expect(textOf(await mcp.callTool("everything", "echo", { message: "hi" }))).toBe("Echo: hi");
    expect(textOf(await mcp.callTool("everything", "get-sum", { a: 2, b: 40 }))).toContain("42");
    const weather = await mcp.callTool("everything", "get-structured-content", { location: "New York" });
    expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });

    const read = await mcp.callTool("filesystem", "read_text_file", { path: path.join(files, "hello.txt") });
    expect(read.structuredContent).toEqual({ content: "hello from a temp folder\n" });
    await mcp.callTool("filesystem", "write_file", { path: path.join(files, "out.txt"), content: "written through MCP" });
    expect(fs.readFileSync(path.join(files, "out.txt"), "utf8")).toBe("written through MCP");
    const outside = await mcp.callTool("filesystem", "read_text_file", { path: "/etc/hostname" });
    expect(outside.isError).toBe(true);

    await mcp.callTool("memory", "create_entities", { entities: [{ name: "Thinktank", entityType: "project", observations: ["uses MCP"] }] });
    const graph = await mcp.callTool("memory", "read_graph");
    expect(graph.structuredContent).toMatchObject({ entities: [{ name: "Thinktank", entityType: "project", observations: ["uses MCP"] }] });

    expect(mcp.status().map((s) => s.pid)).toEqual(pids);
    await mcp.settled();
    const catalog = readCatalog(path.join(temp.dir, "catalog"));
    expect(catalog.servers.map((s) => [s.server, s.tools.length])).toEqual(mcp.status().map((s) => [s.name, s.toolCount]));
    expect(catalog.servers.find((s) => s.server === "filesystem")?.tools.some((t) => t.name === "read_text_file" && t.outputSchema)).toBe(true);
  });

  it.each(["sse", "streamableHttp"] as const)("server-everything over %s on 127.0.0.1: list, call, structuredContent", async (mode) => {
    const remote = await start(mode);
    const mcp = makeManager({ remote: { type: mode === "sse" ? "sse" : "streamable-http", url: remote.url, headers: { "X-Test": "1" } } });
    const tools = await mcp.listTools("remote");
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "get-structured-content"]));
    expect(mcp.statusOf("remote")).toMatchObject({ state: "connected", transport: mode === "sse" ? "sse" : "http" });
    const results = await Promise.all([1, 2, 3].map((n) => mcp.callTool("remote", "echo", { message: `n${n}` })));
    expect(results.map(textOf)).toEqual(["Echo: n1", "Echo: n2", "Echo: n3"]);
    const weather = await mcp.callTool("remote", "get-structured-content", { location: "Chicago" });
    expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it("a streamable HTTP server that dies: retries, SERVICE_UNAVAILABLE naming it, the stdio server keeps working, and it comes back on the next call", async () => {
    const port = await freePort();
    const remote = await start("streamableHttp", port);
    const mcp = makeManager({ remote: { type: "http", url: remote.url }, local: referenceStdioEntry("server-everything") }, { retries: 2 });
    expect(textOf(await mcp.callTool("remote", "echo", { message: "before" }))).toBe("Echo: before");
    await remote.kill();
    let failure: unknown;
    try {
      await mcp.callTool("remote", "echo", { message: "during" });
    } catch (error) {
      failure = error;
    }
    expect(isThinktankError(failure) && failure.code).toBe("SERVICE_UNAVAILABLE");
    expect((failure as Error).message).toMatch(/^MCP server 'remote' is unavailable after 3 attempts: ECONNREFUSED/);
    expect(mcp.statusOf("remote").state).toBe("unavailable");
    expect(textOf(await mcp.callTool("local", "echo", { message: "local" }))).toBe("Echo: local");
    await start("streamableHttp", port);
    expect(textOf(await mcp.callTool("remote", "echo", { message: "after" }))).toBe("Echo: after");
    expect(mcp.statusOf("remote").state).toBe("connected");
  });

  it("a streamable HTTP server that restarts between two calls: the lost session is replaced without an error", async () => {
    const port = await freePort();
    const first = await start("streamableHttp", port);
    const mcp = makeManager({ remote: { type: "http", url: first.url } });
    expect(textOf(await mcp.callTool("remote", "echo", { message: "first session" }))).toBe("Echo: first session");
    await first.kill();
    await start("streamableHttp", port);
    expect(textOf(await mcp.callTool("remote", "echo", { message: "second session" }))).toBe("Echo: second session");
  });
});
