// Issue 24, "Optional: stdio MCP servers in the sandbox": a stdio server marked `sandbox: true` (or a
// plugin's under plugins.host_programs: sandbox) starts under bubblewrap through the MCP manager, as
// the agent wires it (createStdioServerSandbox over the agent's executor). The reference servers work
// there; a probe server finds no secret of the service, no host file outside its cwd, no host process,
// reaches only its declared host and only through the egress proxy, and leaves nothing behind. On
// the deno backend such a server is unavailable with the reason and never starts.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { findExecutable, HostConfinement, loadConfig, type Config } from "@thinktank/core";
import { McpManager, type McpServerEntry } from "@thinktank/mcp";
import { referenceServerScript } from "@thinktank/mcp/testing";
import { createSandboxExecutor, createStdioServerSandbox, type SandboxExecutor } from "@thinktank/sandbox";
import { hostProbeScript, makeTempDir, needs, probeMcpServerScript, processesWithMarker, type HostProbeReport } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentRuntime } from "../src/runtime/agent-runtime.js";

const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const pythonOnPath = findExecutable("python3", searchPath);
const python = pythonOnPath ? execFileSync(pythonOnPath, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim() : undefined;
const secret = `tt-api-key-${crypto.randomUUID()}`;
const everything = referenceServerScript("server-everything");
/** The repository: the reference servers' node_modules, mounted read-only as their cwd. */
const repository = everything.slice(0, everything.indexOf(`${path.sep}node_modules${path.sep}`));

let temp: { dir: string; cleanup: () => void };
let project: string;
const closers: (() => Promise<unknown>)[] = [];
let neighbour: ChildProcess | undefined;
beforeEach(() => {
  temp = makeTempDir("tt-sandboxed-stdio-");
  fs.chmodSync(temp.dir, 0o755);
  project = path.join(temp.dir, "project");
  fs.mkdirSync(path.join(project, "data"), { recursive: true });
  fs.writeFileSync(path.join(project, "data", "threads.sqlite"), "rows");
  fs.writeFileSync(path.join(project, "extensions_config.json"), JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
  fs.mkdirSync(path.join(project, "server"));
  fs.writeFileSync(path.join(project, "server", "probe-server.mjs"), probeMcpServerScript);
  fs.writeFileSync(path.join(project, "server", "probe.py"), hostProbeScript);
  fs.writeFileSync(path.join(temp.dir, "outside.txt"), "host notes");
  // A process of the service's user holding the service's secret, as the agent does.
  neighbour = spawn("sleep", ["300"], { env: { PATH: searchPath, THINKTANK_API_KEY: secret }, stdio: "ignore" });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  neighbour?.kill("SIGKILL");
  temp.cleanup();
});

function configFor(lines: readonly string[]): Config {
  fs.writeFileSync(path.join(project, "config.yaml"), ["data_dir: data", "mcp:", "  connect_timeout_ms: 60000", "  call_timeout_ms: 30000", "  retries: 0", ...lines, ""].join("\n"));
  return loadConfig({ cwd: project, env: { PATH: searchPath, THINKTANK_API_KEY: secret, HOST_ONLY: "host-only-value" } });
}

/** A manager as the agent makes one: stdio servers marked sandbox: true start in the executor's sandbox. */
function managerFor(config: Config, entries: Record<string, McpServerEntry>): { manager: McpManager; executor: SandboxExecutor } {
  const executor = createSandboxExecutor({ config, searchPath, runtimeDir: path.join(temp.dir, "runtime") });
  const manager = new McpManager({ mcp: config.mcp, env: config.env, hostConfinement: new HostConfinement({ searchPath }), stdioSandbox: createStdioServerSandbox(config, { executor }) }, entries);
  closers.push(() => executor.close(), () => manager.close());
  return { manager, executor };
}

const textOf = (result: { content?: unknown }): string => ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((block) => block.text ?? "").join("");

describe("stdio MCP servers in the bubblewrap sandbox", { timeout: 180_000 }, () => {
  it("the reference servers (everything, filesystem, memory) list and call tools, with a home of their own that outlives them", needs("bubblewrap"), async () => {
    const config = configFor([]);
    const home = "/mnt/user-data/workspace";
    const entries: Record<string, McpServerEntry> = {
      everything: { command: "node", args: [everything], cwd: repository, sandbox: true },
      filesystem: { command: "node", args: [referenceServerScript("server-filesystem"), home], cwd: repository, sandbox: true },
      memory: { command: "node", args: [referenceServerScript("server-memory")], env: { MEMORY_FILE_PATH: `${home}/memory.jsonl` }, cwd: repository, sandbox: true },
    };
    const { manager } = managerFor(config, entries);
    const statuses = await manager.connectAll({ concurrency: 3 });
    expect(statuses.map((status) => [status.name, status.state, status.reason])).toEqual([
      ["everything", "connected", undefined],
      ["filesystem", "connected", undefined],
      ["memory", "connected", undefined],
    ]);
    expect((await manager.listTools("everything")).map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum", "get-env"]));
    expect(textOf(await manager.callTool("everything", "echo", { message: "hi" }))).toBe("Echo: hi");
    // Its environment is its sandbox's: no variable of the service.
    const environment = textOf(await manager.callTool("everything", "get-env", {}));
    expect(environment).toContain(home);
    expect(environment).not.toContain(secret);
    expect(environment).not.toContain("host-only-value");

    await manager.callTool("filesystem", "write_file", { path: `${home}/note.txt`, content: "written in the sandbox" });
    expect((await manager.callTool("filesystem", "read_text_file", { path: `${home}/note.txt` })).structuredContent).toEqual({ content: "written in the sandbox" });
    expect(fs.readFileSync(path.join(config.data_dir, "mcp-homes", "filesystem", "note.txt"), "utf8")).toBe("written in the sandbox");
    expect((await manager.callTool("filesystem", "read_text_file", { path: path.join(temp.dir, "outside.txt") })).isError).toBe(true);

    await manager.callTool("memory", "create_entities", { entities: [{ name: "Thinktank", entityType: "project", observations: ["sandboxed"] }] });
    await manager.close();
    // A new manager (a restart): the memory server's home still holds its graph.
    const again = managerFor(config, { memory: entries.memory as McpServerEntry }).manager;
    expect((await again.callTool("memory", "read_graph")).structuredContent).toMatchObject({ entities: [{ name: "Thinktank", observations: ["sandboxed"] }] });
  });

  it.skipIf(!python)("a probe server sees no secret, host process or host file outside its cwd, reaches only its declared host through the proxy, and takes its children with it", needs("bubblewrap"), async () => {
    const hits = { allowed: 0, undeclared: 0 };
    const listen = (name: keyof typeof hits) =>
      new Promise<http.Server>((resolve) => {
        const server = http.createServer((_request, response) => {
          hits[name] += 1;
          response.end(`hello from ${name}`);
        });
        server.listen(0, "127.0.0.1", () => resolve(server));
      });
    const [allowed, undeclared] = await Promise.all([listen("allowed"), listen("undeclared")]);
    closers.push(() => new Promise((resolve) => allowed.close(resolve)), () => new Promise((resolve) => undeclared.close(resolve)));
    const port = (server: http.Server): number => (server.address() as AddressInfo).port;
    const config = configFor(["sandbox:", "  network:", "    allowed_private: [127.0.0.1]"]);
    const marker = `181.${Date.now() % 1e9}${crypto.randomInt(1e6)}`;
    const entry: McpServerEntry = {
      command: "node",
      args: ["server/probe-server.mjs"],
      cwd: project,
      env: { PROBE_SCRIPT: path.join(project, "server", "probe.py"), PROBE_PYTHON: python as string, PROBE_LEAVE: marker },
      sandbox: true,
      network: [`127.0.0.1:${port(allowed)}`],
    };
    const { manager } = managerFor(config, { probe: entry });
    const reads = [path.join(project, "data"), path.join(project, "data", "threads.sqlite"), path.join(project, "extensions_config.json"), path.join(temp.dir, "outside.txt"), path.join(project, "server", "probe.py")];
    const report = (await manager.callTool("probe", "probe", { needle: secret, ptrace: [process.pid, neighbour?.pid], read: reads })).structuredContent as unknown as HostProbeReport;
    expect(report.needleFoundIn).toEqual([]);
    expect(report.visiblePids).not.toContain(process.pid);
    expect(report.visiblePids).not.toContain(neighbour?.pid);
    expect(Object.values(report.ptrace)).not.toContain("attached");
    expect(report.uid).toBe(1000);
    expect(report.reads[path.join(project, "data")]).toEqual({ ok: true, entries: [] });
    expect(report.reads[path.join(project, "data", "threads.sqlite")]?.ok).toBe(false);
    // Covered by /dev/null on a nodev mount: it cannot even be opened.
    expect(report.reads[path.join(project, "extensions_config.json")]?.ok).toBe(false);
    expect(report.reads[path.join(temp.dir, "outside.txt")]?.ok).toBe(false);
    expect(report.reads[path.join(project, "server", "probe.py")]?.ok).toBe(true);
    expect(JSON.stringify(report.env)).not.toContain("host-only-value");

    const reach = async (target: { url?: string; direct?: string }) => (await manager.callTool("probe", "fetch", target)).structuredContent as { status?: number; body?: string; error?: string; connected?: boolean };
    expect(await reach({ url: `http://127.0.0.1:${port(allowed)}/` })).toEqual({ status: 200, body: "hello from allowed" });
    expect(await reach({ url: `http://127.0.0.1:${port(undeclared)}/` })).toMatchObject({ status: 403 });
    expect(await reach({ direct: `127.0.0.1:${port(allowed)}` })).toMatchObject({ error: expect.any(String) });
    expect(hits).toEqual({ allowed: 1, undeclared: 0 });

    // The child it left at start (started in the background: waited for).
    await vi.waitFor(() => expect(processesWithMarker(marker)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await manager.close();
    await vi.waitFor(() => expect(processesWithMarker(marker)).toEqual([]), { timeout: 10_000, interval: 50 });
  });

  it.skipIf(!python)("a plugin's stdio server under plugins.host_programs: sandbox starts sandboxed in the agent", needs("bubblewrap"), async () => {
    const root = path.join(project, "plugins", "installed", "tap");
    fs.mkdirSync(path.join(root, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "tap" }));
    fs.copyFileSync(path.join(project, "server", "probe-server.mjs"), path.join(root, "server.mjs"));
    fs.copyFileSync(path.join(project, "server", "probe.py"), path.join(root, "probe.py"));
    const server = { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"], env: { PROBE_SCRIPT: "${CLAUDE_PLUGIN_ROOT}/probe.py", PROBE_PYTHON: python as string } };
    fs.writeFileSync(path.join(root, ".mcp.json"), JSON.stringify({ mcpServers: { probe: server } }));
    const config = configFor(["sandbox:", "  backend: bubblewrap", "plugins:", "  host_programs: sandbox"]);
    const runtime = new AgentRuntime(config, { tools: false, watch: false, executor: createSandboxExecutor({ config, searchPath, runtimeDir: path.join(temp.dir, "runtime") }) });
    closers.push(() => runtime.close());
    await runtime.start();
    const report = (await runtime.codeMode.manager.callTool("tap:probe", "probe", { needle: secret, read: [path.join(project, "data"), "/mnt/user-data/workspace", root] })).structuredContent as unknown as HostProbeReport;
    // In the sandbox, not merely confined on the host: the sandbox's user and home, nothing of the project but the plugin.
    expect(report.uid).toBe(1000);
    expect(report.reads["/mnt/user-data/workspace"]?.ok).toBe(true);
    expect(report.reads[root]).toMatchObject({ ok: true, entries: expect.arrayContaining(["server.mjs", "probe.py"]) });
    expect(report.reads[path.join(project, "data")]?.ok).toBe(false);
    expect(report.needleFoundIn).toEqual([]);
    expect(fs.existsSync(path.join(config.data_dir, "mcp-homes"))).toBe(true);
  });
});

describe("stdio MCP servers marked sandbox: true on the deno backend", () => {
  it("are unavailable with the reason, in status and on use, and never start on the host", async () => {
    const config = configFor(["sandbox:", "  backend: deno"]);
    const marker = path.join(temp.dir, "started");
    const entry: McpServerEntry = { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`], sandbox: true };
    const { manager } = managerFor(config, { writer: entry, onHost: { ...entry, sandbox: false, args: ["-e", "setInterval(() => {}, 1000)"] } });
    await vi.waitFor(() => expect(manager.status().find((status) => status.name === "writer")).toMatchObject({ state: "unavailable", reason: expect.stringMatching(/deno, which cannot run host programs.*never runs on the host instead/) }), { timeout: 10_000, interval: 20 });
    await expect(manager.callTool("writer", "anything", {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/deno/) });
    expect(await manager.connect("writer")).toMatchObject({ state: "unavailable" });
    expect(fs.existsSync(marker)).toBe(false);
    // One on the host is not affected.
    expect(manager.status().find((status) => status.name === "onHost")?.state).toBe("idle");
  });

  it("list_servers shows such a server (configured, or a plugin's under host_programs: sandbox) unavailable with the reason, as the agent wires it", async () => {
    const root = path.join(project, "plugins", "installed", "tap");
    fs.mkdirSync(path.join(root, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "tap" }));
    fs.writeFileSync(path.join(root, ".mcp.json"), JSON.stringify({ mcpServers: { probe: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } } }));
    const entry = { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], sandbox: true, network: ["registry.npmjs.org"] };
    fs.writeFileSync(path.join(project, "extensions_config.json"), JSON.stringify({ mcpServers: { memory: entry }, skills: {}, plugins: {}, tools: {} }));
    const config = configFor(["sandbox:", "  backend: deno", "plugins:", "  host_programs: sandbox"]);
    const runtime = new AgentRuntime(config, { tools: false, watch: false });
    closers.push(() => runtime.close());
    await runtime.start();
    const reason = /deno, which cannot run host programs.*never runs on the host instead/;
    await vi.waitFor(() => {
      const listed = new Map(runtime.codeMode.codeMode.listServers().map((server) => [server.name, server]));
      expect(listed.get("memory")).toMatchObject({ transport: "stdio", status: "unavailable", reason: expect.stringMatching(reason) });
      expect(listed.get("tap:probe")).toMatchObject({ status: "unavailable", reason: expect.stringMatching(/never runs on the host instead/) });
    }, { timeout: 10_000, interval: 20 });
  });
});
