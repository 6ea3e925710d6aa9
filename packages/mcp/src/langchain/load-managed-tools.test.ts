import fs from "node:fs";
import path from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpManager } from "../manager/mcp-manager.js";
import { referenceStdioEntry } from "../manager/testing/reference-servers.js";
import { testServerEntry } from "../manager/testing/test-server-entry.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { loadAllManagedTools, loadManagedTools } from "./load-managed-tools.js";

let temp: { dir: string; cleanup: () => void };
let manager: McpManager | undefined;
beforeEach(() => {
  temp = makeTempDir("tt-mcp-langchain-");
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  temp.cleanup();
});

function makeManager(entries: Record<string, McpServerEntry>, callTimeoutMs = 30_000): McpManager {
  manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 30_000, call_timeout_ms: callTimeoutMs, retries: 3, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") },
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
    entries,
  );
  return manager;
}

describe("loadManagedTools", () => {
  it("turns server-everything's tools into LangChain tools whose calls go through the manager's one session", async () => {
    const mcp = makeManager({ everything: referenceStdioEntry("server-everything") });
    const tools = await loadManagedTools(mcp, "everything");
    const echo = tools.find((tool) => tool.name === "echo");
    expect(echo?.description).toMatch(/echo/i);
    expect(await echo?.invoke({ message: "through langchain" })).toBe("Echo: through langchain");

    const structured = tools.find((tool) => tool.name === "get-structured-content");
    const message = await structured?.invoke({ type: "tool_call", id: "call-1", name: "get-structured-content", args: { location: "New York" } });
    expect(message).toBeInstanceOf(ToolMessage);
    const artifacts = (message as ToolMessage).artifact as { type: string; data?: unknown }[];
    expect(artifacts.find((a) => a.type === "mcp_structured_content")?.data).toMatchObject({ temperature: expect.any(Number) });
    const pid = mcp.statusOf("everything").pid;
    await echo?.invoke({ message: "again" });
    expect(mcp.statusOf("everything").pid).toBe(pid);
  });

  it("gets the manager's restarts: a tool call after the server was killed succeeds on a new process", async () => {
    const log = path.join(temp.dir, "starts");
    const mcp = makeManager({ test: testServerEntry({ TEST_SERVER_START_LOG: log }) });
    const tools = await loadManagedTools(mcp, "test");
    const echo = tools.find((tool) => tool.name === "echo");
    expect(await echo?.invoke({ text: "one" })).toMatchObject({ text: "one", structuredContent: { echoed: "one" } });
    // The pid is the confining wrapper's: its server dies with it, a moment later (die-with-parent).
    process.kill(mcp.statusOf("test").pid as number, "SIGKILL");
    await vi.waitFor(() => expect(mcp.statusOf("test").state).not.toBe("connected"), { timeout: 10_000, interval: 20 });
    expect(await echo?.invoke({ text: "two" })).toMatchObject({ text: "two" });
    expect(fs.readFileSync(log, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("reports the manager's timeout for a tool that never answers", async () => {
    const mcp = makeManager({ test: testServerEntry() }, 300);
    const hang = (await loadManagedTools(mcp, "test")).find((tool) => tool.name === "hang");
    await expect(hang?.invoke({})).rejects.toThrow(/MCP server 'test' did not answer tools\/call hang within 300 ms/);
  });

  it("renames tools on request and uses the cached list without connecting", async () => {
    const mcp = makeManager({ test: testServerEntry() });
    await mcp.listTools("test");
    await mcp.close();
    const cachedOnly = makeManager({ test: testServerEntry() });
    const tools = await loadManagedTools(cachedOnly, "test", { toolName: (server, tool) => `${server}__${tool}_renamed`, prefixToolNameWithServerName: true });
    expect(cachedOnly.statusOf("test").state).toBe("idle");
    expect(tools.map((tool) => tool.name)).toContain("test__echo_renamed");
    const echo = tools.find((tool) => tool.name === "test__echo_renamed");
    // The MCP server and name stay known whatever the tool is called (plugin hooks: mcp__test__echo).
    expect(echo?.metadata?.mcp).toEqual({ server: "test", tool: "echo" });
    expect(await echo?.invoke({ text: "lazy" })).toMatchObject({ text: "lazy" });
    expect(cachedOnly.statusOf("test").state).toBe("connected");
  });

  it("loads every server's tools and reports the ones that cannot be reached", async () => {
    const mcp = makeManager({ good: testServerEntry(), broken: { command: "/nonexistent/thinktank-no-such-binary" } });
    const { tools, unavailable } = await loadAllManagedTools(mcp, { prefixToolNameWithServerName: true });
    expect(tools.map((tool) => tool.name)).toContain("good__echo");
    expect(unavailable).toEqual([{ server: "broken", reason: "MCP server 'broken' is unavailable: command not found (/nonexistent/thinktank-no-such-binary)" }]);
  });
});
