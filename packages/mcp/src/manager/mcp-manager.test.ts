import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import type { ThinktankError } from "@thinktank/core";
import { freePort, makeTempDir, processesWithMarker } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { catalogFileName } from "../catalog/cached-tool-list.js";
import { readCatalog } from "../catalog/read-catalog.js";
import { entryHash } from "../servers/config-hash.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import type { McpManagerOptions, ToolsChangedEvent } from "./manager-types.js";
import { McpManager } from "./mcp-manager.js";
import { testServerEntry } from "./testing/test-server-entry.js";
import { processAlive, waitFor } from "./testing/wait-for.js";

let temp: { dir: string; cleanup: () => void };
let managers: McpManager[] = [];
beforeEach(() => {
  temp = makeTempDir("tt-mcp-manager-");
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.close()));
  managers = [];
  temp.cleanup();
});

const hostEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
const catalogDir = (): string => path.join(temp.dir, "catalog");

function makeManager(entries: Record<string, McpServerEntry>, overrides: Partial<McpManagerOptions> & { settings?: Partial<McpManagerOptions["mcp"]> } = {}): McpManager {
  const { settings, ...options } = overrides;
  const manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 20_000, call_timeout_ms: 30_000, retries: 3, retry_base_delay_ms: 10, catalog_dir: catalogDir(), ...settings },
      env: hostEnv,
      ...options,
    },
    entries,
  );
  managers.push(manager);
  return manager;
}

const startLog = (name: string): string => path.join(temp.dir, `${name}.starts`);
const starts = (name: string): number[] => (fs.existsSync(startLog(name)) ? fs.readFileSync(startLog(name), "utf8").trim().split("\n").filter(Boolean).map(Number) : []);
const callLog = (name: string): string => path.join(temp.dir, `${name}.calls`);
/** Waits until server `name` has received a call of `tool` (the test server logs each call as it arrives). */
const callArrived = (name: string, tool: string) => waitFor(`the ${tool} call to reach ${name}`, () => fs.existsSync(callLog(name)) && fs.readFileSync(callLog(name), "utf8").split("\n").includes(tool));
const textOf = (result: { content: unknown }): string => ((result.content as { text?: string }[])[0]?.text ?? "");

async function rejection(promise: Promise<unknown>): Promise<ThinktankError> {
  try {
    await promise;
  } catch (error) {
    if (isThinktankError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("McpManager sessions", () => {
  it("reuses one process for many calls, concurrent and sequential, and passes structuredContent through", async () => {
    const manager = makeManager({ a: testServerEntry({ TEST_SERVER_START_LOG: startLog("a") }) });
    expect(manager.statusOf("a")).toMatchObject({ name: "a", transport: "stdio", state: "idle" });
    const concurrent = await Promise.all(Array.from({ length: 10 }, (_, i) => manager.callTool("a", "echo", { text: `hello ${i}` })));
    for (const [i, result] of concurrent.entries()) {
      expect(result.structuredContent).toEqual({ echoed: `hello ${i}` });
      expect(textOf(result)).toBe(`hello ${i}`);
    }
    for (let i = 0; i < 10; i++) await manager.callTool("a", "echo", { text: "again" });
    expect(starts("a")).toHaveLength(1);
    // The status names the host process that holds the session (the server's own pid is its pid namespace's).
    const pid = manager.statusOf("a").pid as number;
    expect(manager.statusOf("a")).toMatchObject({ state: "connected", toolCount: 7, toolsFrom: "live" });
    expect(processAlive(pid)).toBe(true);
  });

  it("follows nextCursor when a server lists its tools in pages", async () => {
    const manager = makeManager({ paged: testServerEntry({ TEST_SERVER_PAGE_SIZE: "2" }) });
    const tools = await manager.listTools("paged");
    expect(tools.map((t) => t.name)).toEqual(["echo", "slow", "hang", "fail", "exit", "whoami", "add_tool"]);
  });

  it("gives a stdio child only PATH, HOME and its own env, with placeholders resolved at connect time", async () => {
    const manager = makeManager(
      { a: testServerEntry({ OWN_TOKEN: "${SERVICE_TOKEN}" }) },
      { env: { ...hostEnv, SERVICE_TOKEN: "tok-123", HOST_SECRET: "must-not-leak" } },
    );
    const result = await manager.callTool("a", "whoami");
    const env = (result.structuredContent as { env: Record<string, string> }).env;
    expect(Object.keys(env).sort()).toEqual(["HOME", "OWN_TOKEN", "PATH"]);
    expect(env.OWN_TOKEN).toBe("tok-123");
    expect(JSON.stringify(env)).not.toContain("must-not-leak");
  });

  it("does not retry a tool's own error result", async () => {
    const manager = makeManager({ a: testServerEntry({ TEST_SERVER_START_LOG: startLog("a") }) });
    const first = await manager.callTool("a", "fail");
    const second = await manager.callTool("a", "fail");
    expect([first.isError, textOf(first)]).toEqual([true, "failure number 1"]);
    expect([second.isError, textOf(second)]).toEqual([true, "failure number 2"]);
    expect(starts("a")).toHaveLength(1);
  });

  it("answers MCP_SERVER_NOT_FOUND and MCP_TOOL_NOT_FOUND for names it does not know", async () => {
    const manager = makeManager({ a: testServerEntry() });
    const noServer = await rejection(manager.callTool("nope", "echo"));
    expect([noServer.code, noServer.message]).toEqual(["MCP_SERVER_NOT_FOUND", "no MCP server named 'nope' (configured: a)"]);
    const noTool = await rejection(manager.callTool("a", "no_such_tool"));
    expect([noTool.code, noTool.message]).toEqual(["MCP_TOOL_NOT_FOUND", "MCP server 'a' has no tool 'no_such_tool'"]);
  });

  it("times out a tool that never answers with MCP_CALL_TIMEOUT, does not retry it, and keeps the session", async () => {
    const manager = makeManager({ a: testServerEntry({ TEST_SERVER_START_LOG: startLog("a") }) }, { settings: { call_timeout_ms: 400 } });
    const started = Date.now();
    const error = await rejection(manager.callTool("a", "hang"));
    expect(error.code).toBe("MCP_CALL_TIMEOUT");
    expect(error.message).toBe("MCP server 'a' did not answer tools/call hang within 400 ms");
    expect(Date.now() - started).toBeLessThan(15_000);
    const perCall = await rejection(manager.callTool("a", "slow", { ms: 5000 }, { timeoutMs: 200 }));
    expect(perCall.message).toContain("within 200 ms");
    expect(textOf(await manager.callTool("a", "echo", { text: "still here" }))).toBe("still here");
    expect(starts("a")).toHaveLength(1);
  });

  it("rejects settings that make no sense, naming each", () => {
    expect(() => makeManager({}, { settings: { retries: -1, connect_timeout_ms: 0 } })).toThrowError(
      "mcp.connect_timeout_ms: expected a positive number, got 0; mcp.retries: expected an integer ≥ 0, got -1",
    );
  });
});

describe("McpManager failures", () => {
  it("restarts a server killed mid-call and retries the call on the new process", async () => {
    const manager = makeManager({ a: testServerEntry({ TEST_SERVER_START_LOG: startLog("a"), TEST_SERVER_CALL_LOG: callLog("a") }) });
    await manager.connect("a");
    const pid = manager.statusOf("a").pid as number;
    const call = manager.callTool("a", "slow", { ms: 1500 });
    await callArrived("a", "slow");
    process.kill(pid, "SIGKILL");
    expect(textOf(await call)).toBe("slept 1500 ms");
    expect(starts("a")).toHaveLength(2);
    expect(manager.statusOf("a").pid).not.toBe(pid);
  });

  it("gives up with SERVICE_UNAVAILABLE naming the server when it cannot come back; the others keep working; the next call restarts it", async () => {
    const refuse = path.join(temp.dir, "refuse");
    const sleeps: number[] = [];
    const manager = makeManager(
      { a: testServerEntry({ TEST_SERVER_START_LOG: startLog("a"), TEST_SERVER_REFUSE_FILE: refuse, TEST_SERVER_CALL_LOG: callLog("a") }), b: testServerEntry() },
      { sleep: async (ms) => void sleeps.push(ms) },
    );
    await manager.connectAll();
    const pid = manager.statusOf("a").pid as number;
    const call = manager.callTool("a", "slow", { ms: 10_000 });
    await callArrived("a", "slow");
    fs.writeFileSync(refuse, "");
    process.kill(pid, "SIGKILL");
    const error = await rejection(call);
    expect(error.code).toBe("SERVICE_UNAVAILABLE");
    expect(error.message).toMatch(/^MCP server 'a' is unavailable after 4 attempts: /);
    expect(error.details).toMatchObject({ server: "a", attempts: 4 });
    expect(sleeps).toEqual([10, 20, 40]);
    expect(starts("a")).toHaveLength(4);
    expect(manager.statusOf("a")).toMatchObject({ state: "unavailable" });
    expect(manager.statusOf("a").reason).toContain("refusing to start");
    expect(textOf(await manager.callTool("b", "echo", { text: "b works" }))).toBe("b works");
    fs.rmSync(refuse);
    expect(textOf(await manager.callTool("a", "echo", { text: "a is back" }))).toBe("a is back");
    expect(manager.statusOf("a").state).toBe("connected");
    expect(starts("a")).toHaveLength(5);
  });

  it("reports servers that cannot start as unavailable with their reasons, and the others still work", async () => {
    const closedPort = await freePort();
    const manager = makeManager(
      {
        good: testServerEntry(),
        badCommand: { command: "/nonexistent/thinktank-no-such-binary" },
        emptyUrl: { type: "http", url: "" },
        unsetVariable: { command: "node", args: ["${THINKTANK_TEST_UNSET_VARIABLE}"] },
        refused: { type: "http", url: `http://127.0.0.1:${closedPort}/mcp` },
        disabled: { command: "node", enabled: false },
      },
      { settings: { retries: 2 } },
    );
    const progress: string[] = [];
    const statuses = await manager.connectAll({ concurrency: 2, onProgress: (p) => progress.push(`${p.done}/${p.total}`) });
    expect(progress).toEqual(["1/5", "2/5", "3/5", "4/5", "5/5"]);
    const byName = Object.fromEntries(statuses.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(["badCommand", "emptyUrl", "good", "refused", "unsetVariable"]);
    expect(byName.good).toMatchObject({ state: "connected", toolCount: 7 });
    expect(byName.badCommand).toMatchObject({ state: "unavailable", reason: "command not found (/nonexistent/thinktank-no-such-binary)" });
    expect(byName.emptyUrl).toMatchObject({ state: "unavailable", transport: "http", reason: "'url' is empty" });
    expect(byName.unsetVariable).toMatchObject({ state: "unavailable", reason: "environment variable $THINKTANK_TEST_UNSET_VARIABLE is not set" });
    expect(byName.refused?.state).toBe("unavailable");
    expect(byName.refused?.reason).toMatch(/^ECONNREFUSED: .* \(after 3 attempts; tried again on next use\)$/);
    const error = await rejection(manager.callTool("unsetVariable", "anything"));
    expect([error.code, error.message]).toEqual(["SERVICE_UNAVAILABLE", "MCP server 'unsetVariable' is unavailable: environment variable $THINKTANK_TEST_UNSET_VARIABLE is not set"]);
    const spawnError = await rejection(manager.callTool("badCommand", "anything"));
    expect(spawnError.message).toBe("MCP server 'badCommand' is unavailable: command not found (/nonexistent/thinktank-no-such-binary)");
    expect(textOf(await manager.callTool("good", "echo", { text: "fine" }))).toBe("fine");
  });

  it("times out a server that never finishes initialize, and stops its process", async () => {
    // A marker on the command line finds its processes from the host (their own pids are their pid namespace's).
    const marker = `silent-server-${path.basename(temp.dir)}`;
    const entry = testServerEntry({ TEST_SERVER_SILENT: "1", TEST_SERVER_START_LOG: startLog("silent") });
    const manager = makeManager({ silent: { ...entry, args: [...(entry.args ?? []), marker] } }, { settings: { connect_timeout_ms: 2000, retries: 1 } });
    const status = await manager.connect("silent");
    expect(status).toMatchObject({ state: "unavailable", reason: "did not finish connecting within 2000 ms (after 2 attempts; tried again on next use)" });
    expect(starts("silent")).toHaveLength(2);
    await waitFor("the silent servers to end", () => processesWithMarker(marker).length === 0);
  });
});

describe("McpManager tool lists and the disk cache", () => {
  it("writes the catalog format without resolved secrets, and a new manager reads it back without connecting", async () => {
    const entry = testServerEntry({ TOKEN: "${SECRET_TOKEN}", TEST_SERVER_START_LOG: startLog("a") }, { description: "the test server" });
    const env = { ...hostEnv, SECRET_TOKEN: "very-secret-value" };
    const manager = makeManager({ a: entry }, { env, now: () => Date.parse("2030-01-02T03:04:05.000Z") });
    await manager.listTools("a");
    const file = path.join(catalogDir(), catalogFileName("a"));
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toContain("very-secret-value");
    const { servers, skipped } = readCatalog(catalogDir());
    expect(skipped).toEqual([]);
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({ server: "a", configHash: entryHash(entry), fetchedAt: "2030-01-02T03:04:05.000Z", transport: "stdio" });
    expect(servers[0]?.tools.find((t) => t.name === "echo")?.outputSchema).toEqual({ type: "object", properties: { echoed: { type: "string" } }, required: ["echoed"] });
    await manager.close();

    const fresh = makeManager({ a: entry }, { env });
    expect(fresh.statusOf("a")).toMatchObject({ state: "idle", toolCount: 7, toolsFrom: "cache", description: "the test server" });
    expect(fresh.knownTools("a")?.map((t) => t.name)).toContain("whoami");
    expect(starts("a")).toHaveLength(1);
    const changed = makeManager({ a: { ...entry, args: [...(entry.args ?? []), "--changed"] } }, { env });
    expect(changed.statusOf("a").toolCount).toBeUndefined();
    const missingSecret = makeManager({ a: entry });
    expect(missingSecret.statusOf("a")).toMatchObject({ state: "unavailable", reason: "environment variable $SECRET_TOKEN is not set", toolCount: 7 });
  });

  it("refreshes on notifications/tools/list_changed: the cache is rewritten and listeners are told", async () => {
    const manager = makeManager({ a: testServerEntry() });
    const events: ToolsChangedEvent[] = [];
    manager.onToolsChanged((event) => events.push(event));
    await manager.listTools("a");
    expect(events.map((e) => [e.server, e.cause, e.tools.length])).toEqual([["a", "connected", 7]]);
    await manager.callTool("a", "add_tool", { name: "late_tool" });
    await waitFor("the list_changed refresh", () => events.length === 2);
    await manager.settled();
    expect(events[1]).toMatchObject({ server: "a", cause: "list_changed" });
    expect(events[1]?.tools.map((t) => t.name)).toContain("late_tool");
    expect(readCatalog(catalogDir()).servers[0]?.tools.map((t) => t.name)).toContain("late_tool");
    expect(textOf(await manager.callTool("a", "late_tool"))).toBe("called late_tool");
    expect(manager.statusOf("a").toolCount).toBe(8);
  });

  it("sync keeps unchanged sessions, replaces changed ones, closes removed ones and deletes their cache", async () => {
    const entries = {
      keep: testServerEntry({ TEST_SERVER_START_LOG: startLog("keep") }),
      change: testServerEntry({ TEST_SERVER_START_LOG: startLog("change") }),
      remove: testServerEntry({ TEST_SERVER_START_LOG: startLog("remove") }),
      "plugin:server": testServerEntry(),
    };
    const manager = makeManager(entries);
    const events: ToolsChangedEvent[] = [];
    manager.onToolsChanged((event) => events.push(event));
    await manager.connectAll();
    const pids = Object.fromEntries(manager.status().map((s) => [s.name, s.pid as number]));
    expect(fs.existsSync(path.join(catalogDir(), catalogFileName("remove")))).toBe(true);
    expect(catalogFileName("plugin:server")).toMatch(/^plugin_server-[0-9a-f]{8}\.json$/);

    const report = manager.sync({
      keep: { ...entries.keep, description: "only the description changed" },
      change: testServerEntry({ TEST_SERVER_START_LOG: startLog("change"), EXTRA: "1" }),
      "plugin:server": { ...entries["plugin:server"], enabled: false },
      added: testServerEntry(),
    });
    expect(report).toEqual({ added: ["added"], removed: ["plugin:server", "remove"], changed: ["change"], unchanged: ["keep"] });
    await manager.settled();
    expect(manager.statusOf("keep")).toMatchObject({ state: "connected", pid: pids.keep, description: "only the description changed" });
    expect(manager.statusOf("change").state).toBe("connected");
    expect(starts("change")).toHaveLength(2);
    expect(manager.statusOf("added").state).toBe("idle");
    await waitFor("the removed server to exit", () => !processAlive(pids.remove as number));
    await waitFor("the replaced server to exit", () => !processAlive(pids.change as number));
    expect(processAlive(pids.keep as number)).toBe(true);
    expect(fs.existsSync(path.join(catalogDir(), catalogFileName("remove")))).toBe(false);
    expect(readCatalog(catalogDir()).servers.map((s) => s.server)).toEqual(["change", "keep"]);
    expect(events.filter((e) => e.cause === "removed").map((e) => e.server).sort()).toEqual(["plugin:server", "remove"]);
    expect(manager.serverNames()).toEqual(["added", "change", "keep"]);
  });

  it("sync refreshes the cached tool list of a changed server that was never connected in this process", async () => {
    const first = makeManager({ a: testServerEntry() });
    await first.listTools("a");
    await first.close();
    const manager = makeManager({ a: testServerEntry() });
    expect(manager.statusOf("a")).toMatchObject({ state: "idle", toolsFrom: "cache" });
    const changedEntry = testServerEntry({ TEST_SERVER_PAGE_SIZE: "3" });
    expect(manager.sync({ a: changedEntry }).changed).toEqual(["a"]);
    await manager.settled();
    expect(manager.statusOf("a")).toMatchObject({ state: "connected", toolCount: 7 });
    expect(readCatalog(catalogDir()).servers[0]?.configHash).toBe(entryHash(changedEntry));
  });
});
