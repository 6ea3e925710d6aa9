import fs from "node:fs";
import path from "node:path";
import { loadConfig, type Config } from "@thinktank/core";
import { McpManager } from "@thinktank/mcp";
import { referenceStdioEntry, startEverythingOverHttp, type RunningHttpServer } from "@thinktank/mcp/testing";
import { createSandboxExecutor, type SandboxExecutor } from "@thinktank/sandbox";
import { freePort, makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeMode } from "./code-mode.js";
import { McpToolInvoker } from "./invoker/mcp-tool-invoker.js";
import { chooseToolSurface } from "./surface/choose-tool-surface.js";

// A user's own server in code mode, found and used like a shared one, and seen by nobody else:
// the shared server is server-memory over stdio; alice adds server-everything over streamable
// HTTP as her own `~kitchen`; bob is another user.
describe("code mode: a user's own servers", () => {
  let temp: { dir: string; cleanup: () => void };
  let kitchen: RunningHttpServer;
  let config: Config;
  let manager: McpManager;
  let executor: SandboxExecutor;
  let codeMode: CodeMode;
  const alice = "usr_a11ce";
  const bob = "usr_b0b";
  const names = (hits: readonly { server: string; name: string }[]) => hits.map((hit) => `${hit.server}/${hit.name}`);

  beforeAll(async () => {
    temp = makeTempDir("tt-codemode-own-");
    fs.chmodSync(temp.dir, 0o755);
    kitchen = await startEverythingOverHttp("streamableHttp", await freePort());
    const loaded = loadConfig({ cwd: temp.dir, env: {} });
    config = {
      ...loaded,
      env: { PATH: process.env.PATH },
      mcp: { ...loaded.mcp, connect_timeout_ms: 30_000, call_timeout_ms: 30_000 },
      code_execution: { ...loaded.code_execution, timeout_seconds: 60 },
      sandbox: { ...loaded.sandbox, warm_pool_size: 0 },
    };
    manager = new McpManager({ mcp: config.mcp, env: config.env }, { memory: referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: path.join(temp.dir, "memory.json") }) });
    executor = createSandboxExecutor({ config, searchPath: process.env.PATH, runtimeDir: path.join(temp.dir, "sandbox-runtime") });
    codeMode = new CodeMode({ config, executor, invokers: [new McpToolInvoker(manager)], runtimeDir: path.join(temp.dir, "bridges") });
    await codeMode.prepare();
  }, 120_000);
  afterAll(async () => {
    await codeMode?.close();
    await manager?.close();
    await executor?.close();
    await kitchen?.kill();
    temp?.cleanup();
  });

  it("the owner finds their server's tools with search_tools and lists it with its state", async () => {
    expect(names(await codeMode.searchTools({ query: "echo back a message", limit: 50 }, alice))).not.toContain("~kitchen/echo");
    manager.syncUser(alice, { "~kitchen": { type: "http", url: kitchen.url, description: "alice's kitchen sink" } });
    // Known once her session has listed it (search_tools starts her discovery).
    await expect.poll(async () => names(await codeMode.searchTools({ query: "echo back a message", limit: 3 }, alice)), { timeout: 60_000 }).toContain("~kitchen/echo");
    const [echo] = await codeMode.searchTools({ query: "echo", server: "~kitchen", detail: "full", limit: 1 }, alice);
    expect(echo).toMatchObject({
      server: "~kitchen",
      name: "echo",
      wrapper_path: "/mnt/my-code-api/servers/kitchen/echo.ts",
      typescript_import: 'import { echo } from "servers/kitchen";',
      python_import: "from servers.kitchen import echo",
    });
    expect(echo?.input_schema).toMatchObject({ properties: { message: { type: "string" } } });
    const listed = codeMode.listServers(alice).find((summary) => summary.name === "~kitchen");
    expect(listed).toMatchObject({ name: "~kitchen", transport: "http", status: "connected", description: "alice's kitchen sink" });
    expect(listed?.tool_count).toBeGreaterThan(5);
  }, 90_000);

  it("an own server that does not answer is listed with its state and reason, and search_tools says why it has no tools", async () => {
    const closed = await freePort();
    manager.syncUser(alice, { "~kitchen": { type: "http", url: kitchen.url, description: "alice's kitchen sink" }, "~down": { type: "http", url: `http://127.0.0.1:${closed}/mcp` } });
    await codeMode.searchTools({ query: "echo" }, alice); // starts her discovery
    await expect.poll(() => codeMode.listServers(alice).find((summary) => summary.name === "~down")?.reason ?? "", { timeout: 30_000 }).not.toBe("");
    const down = codeMode.listServers(alice).find((summary) => summary.name === "~down");
    expect(down?.status).toMatch(/unavailable|connecting/);
    expect(down?.tool_count).toBeUndefined();
    await expect(codeMode.searchTools({ query: "", server: "~down" }, alice)).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("'~down' are not known") });
    expect(codeMode.listServers(bob).map((summary) => summary.name)).toEqual(["memory"]);
    manager.syncUser(alice, { "~kitchen": { type: "http", url: kitchen.url, description: "alice's kitchen sink" } });
  }, 60_000);

  it("the owner's programs import the typed wrappers of their server, in TypeScript and Python", async () => {
    const typescript = [
      'import { echo } from "servers/kitchen";',
      'import { echo as echoAgain } from "servers/kitchen";',
      'import { createEntities } from "servers/memory";',
      'await createEntities({ entities: [{ name: "pan", entityType: "tool", observations: [] }] });',
      'console.log(JSON.stringify([await echo({ message: "hi" }), await echoAgain({ message: "again" })]));',
    ].join("\n");
    const run = await codeMode.executeCode({ code: typescript }, { threadId: "alice", userId: alice });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.stdout).toContain("Echo: hi");
    expect(run.stdout).toContain("Echo: again");
    expect(run.tools_called.map((call) => [call.tool, call.status])).toEqual([
      ["memory.create_entities", "ok"],
      ["~kitchen.echo", "ok"],
      ["~kitchen.echo", "ok"],
    ]);
    const python = await codeMode.executeCode({ code: 'from servers.kitchen import echo\nfrom servers.memory import read_graph\nread_graph()\nprint(echo(message="from python"))', language: "python" }, { threadId: "alice", userId: alice });
    expect(python.exit_code, python.stderr).toBe(0);
    expect(python.stdout).toContain("Echo: from python");
    // Her folder removed behind code mode's back (another process, a person): made again on her next run.
    fs.rmSync(codeMode.users.view(alice)?.dir as string, { recursive: true, force: true });
    const again = await codeMode.executeCode({ code: 'import { echo } from "servers/kitchen";\nconsole.log(await echo({ message: "back" }));' }, { threadId: "alice", userId: alice });
    expect(again.stdout, again.stderr).toContain("Echo: back");
    // Her wrappers are in a folder of her own, never in the shared code API every program sees.
    expect(fs.existsSync(path.join(config.code_execution.code_api_dir, "servers", "kitchen"))).toBe(false);
    expect(fs.existsSync(path.join(config.code_execution.code_api_dir, "python", "servers", "kitchen"))).toBe(false);
  }, 120_000);

  it("an own server named like a shared one gets a folder of its own; the shared server keeps its folder", async () => {
    const entries = { "~kitchen": { type: "http" as const, url: kitchen.url, description: "alice's kitchen sink" } };
    manager.syncUser(alice, { ...entries, "~memory": { type: "http", url: kitchen.url } });
    await expect.poll(async () => (await codeMode.searchTools({ query: "echo", server: "~memory", detail: "full", limit: 1 }, alice).catch(() => []))[0]?.wrapper_path, { timeout: 60_000 }).toBe(
      "/mnt/my-code-api/servers/memory-2/echo.ts",
    );
    const program = [
      'import { echo } from "servers/memory-2";',
      'import { readGraph } from "servers/memory";',
      "await readGraph({});",
      'console.log(await echo({ message: "mine" }));',
    ].join("\n");
    const run = await codeMode.executeCode({ code: program }, { threadId: "alice", userId: alice });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.tools_called.map((call) => call.tool)).toEqual(["memory.read_graph", "~memory.echo"]);
    manager.syncUser(alice, entries);
  }, 90_000);

  it("auto mode counts the owner's server's tools, and only theirs", async () => {
    const surface = (userId?: string) =>
      chooseToolSurface({ codeMode, manager, mode: "auto", autoThresholdTokens: 1_000_000, place: { threadId: "t", ...(userId ? { userId } : {}) } });
    const operator = await surface();
    const mine = await surface(alice);
    const other = await surface(bob);
    const kitchenTools = manager.knownTools("~kitchen", alice)?.length ?? 0;
    expect(kitchenTools).toBeGreaterThan(5);
    expect(mine.description.toolCount).toBe(operator.description.toolCount + kitchenTools);
    expect(mine.description.costs.direct).toBeGreaterThan(operator.description.costs.direct);
    expect(other.description).toEqual(operator.description);
    expect(mine.tools.some((tool) => tool.name.includes("kitchen"))).toBe(true);
    expect(other.tools.some((tool) => tool.name.includes("kitchen"))).toBe(false);
    // Below the threshold it costs, the owner's surface switches to code mode; the others' stays direct.
    const threshold = Math.round((operator.description.costs.direct + mine.description.costs.direct) / 2);
    const at = (userId?: string) => chooseToolSurface({ codeMode, manager, mode: "auto", autoThresholdTokens: threshold, place: { threadId: "t", ...(userId ? { userId } : {}) } });
    expect((await at(alice)).mode).toBe("code");
    expect((await at(bob)).mode).toBe("direct");
    expect((await at()).mode).toBe("direct");
  }, 60_000);

  it("another user sees nothing of it: not in search_tools, list_servers nor their programs", async () => {
    for (const who of [bob, undefined]) {
      const hits = await codeMode.searchTools({ query: "echo back a message kitchen", limit: 50 }, who);
      expect(JSON.stringify(hits)).not.toContain("kitchen");
      await expect(codeMode.searchTools({ query: "", server: "~kitchen" }, who)).rejects.toMatchObject({ code: "MCP_SERVER_NOT_FOUND" });
      expect(codeMode.listServers(who).map((summary) => summary.name)).toEqual(["memory"]);
    }
    const aliceDir = codeMode.users.view(alice)?.dir as string;
    expect(fs.existsSync(path.join(aliceDir, "servers", "kitchen", "echo.ts"))).toBe(true);
    for (const target of ["servers/kitchen", "/mnt/my-code-api/servers/kitchen/index.ts", path.join(aliceDir, "servers", "kitchen", "index.ts")]) {
      const run = await codeMode.executeCode({ code: `import { echo } from ${JSON.stringify(target)};\nconsole.log(await echo({ message: "stolen" }));` }, { threadId: "bob", userId: bob });
      expect(run.error?.code, target).toBe("CODE_BUILD_FAILED");
      expect(run.tools_called).toEqual([]);
    }
    // Nor read at run time: neither her folder on the host nor the own-code-API mount is in his sandbox.
    const reader = [
      'import fs from "node:fs";',
      "const readable = (p: string) => { try { fs.readdirSync(p); return true; } catch { return false; } };",
      `console.log(JSON.stringify([readable(${JSON.stringify(aliceDir)}), readable(${JSON.stringify(path.dirname(aliceDir))}), readable("/mnt/my-code-api")]));`,
    ].join("\n");
    const read = await codeMode.executeCode({ code: reader }, { threadId: "bob", userId: bob });
    expect(read.error, read.stderr).toBeUndefined();
    expect(JSON.parse(read.stdout)).toEqual([false, false, false]);
    const python = await codeMode.executeCode({ code: 'from servers.kitchen import echo\nprint(echo(message="stolen"))', language: "python" }, { threadId: "bob", userId: bob });
    expect(python.exit_code).not.toBe(0);
    expect(python.stderr).toMatch(/ModuleNotFoundError|No module named/);
    // Calling it by name gets the unknown-server answer, as for a server that does not exist.
    const call = await codeMode.executeCode(
      { code: 'import { callMCPTool } from "/mnt/code-api/runtime/call-mcp-tool.ts";\ntry { await callMCPTool("~kitchen", "echo", { message: "x" }); } catch (error) { console.log((error as { code: string }).code); }' },
      { threadId: "bob", userId: bob },
    );
    expect(call.stdout.trim()).toBe("MCP_SERVER_NOT_FOUND");
  }, 120_000);
});
