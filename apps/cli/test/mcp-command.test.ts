import fs from "node:fs";
import path from "node:path";
import { McpManager, McpStatusRecorder, type McpServerEntry } from "@thinktank/mcp";
import { referenceStdioEntry, testServerEntry } from "@thinktank/mcp/testing";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// `thinktank mcp list|call` end to end: a real config folder, real servers, the real command.
let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-mcp-");
  const servers = {
    everything: { ...referenceStdioEntry("server-everything"), description: "The MCP reference server" },
    test: testServerEntry({ TEST_SERVER_START_LOG: path.join(temp.dir, "test.starts") }),
    broken: { command: "/nonexistent/thinktank-no-such-binary" },
    "needs-token": { type: "http", url: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${THINKTANK_TEST_TOKEN}" } },
    off: { command: "node", enabled: false, description: "switched off" },
  };
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: servers, skills: {}, plugins: {}, tools: {} }, null, 2));
});
afterEach(() => temp.cleanup());

async function run(args: string[], options: { tty?: boolean; input?: string[] } = {}): Promise<CapturedRun> {
  return runCaptured(["mcp", ...args], { cwd: temp.dir, tty: options.tty ?? false, ...(options.input ? { input: `${options.input.join("\n")}\n` } : {}) });
}

const starts = (): number => (fs.existsSync(path.join(temp.dir, "test.starts")) ? fs.readFileSync(path.join(temp.dir, "test.starts"), "utf8").trim().split("\n").length : 0);

describe("thinktank mcp list", () => {
  it("shows every server with transport, state, tool count and reason; --json gives the same as data", async () => {
    const table = await run(["list"]);
    expect(table.code).toBe(0);
    expect(table.stderr).toBe("");
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^SERVER\s+TRANSPORT\s+STATE\s+TOOLS\s+DETAILS$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 4))).toEqual([
      ["broken", "stdio", "unavailable", "-"],
      ["everything", "stdio", "connected", "13"],
      ["needs-token", "http", "unavailable", "-"],
      ["off", "-", "disabled", "-"],
      ["test", "stdio", "connected", "7"],
    ]);
    expect(table.stdout).toContain("environment variable $THINKTANK_TEST_TOKEN is not set");
    expect(table.stdout).toContain("command not found (/nonexistent/thinktank-no-such-binary)");

    const json = await run(["list", "--json"]);
    const servers = (JSON.parse(json.stdout) as { servers: { name: string; state: string; toolCount?: number; reason?: string }[] }).servers;
    expect(servers.map((s) => [s.name, s.state, s.toolCount ?? null])).toEqual([
      ["broken", "unavailable", null],
      ["everything", "connected", 13],
      ["needs-token", "unavailable", null],
      ["off", "disabled", null],
      ["test", "connected", 7],
    ]);
  });

  it("adds the enabled plugins' servers as <plugin>:<server>; a configured name wins; a disabled plugin's servers are gone", async () => {
    const plugin = path.join(temp.dir, "plugins", "installed", "docs-helper");
    fs.mkdirSync(path.join(plugin, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "docs-helper", version: "1.0.0" }));
    const pluginServers = { search: testServerEntry(), remote: { type: "http", url: "" }, shadowed: testServerEntry() };
    fs.writeFileSync(path.join(plugin, ".mcp.json"), JSON.stringify({ mcpServers: pluginServers }));
    const configFile = path.join(temp.dir, "extensions_config.json");
    const document = JSON.parse(fs.readFileSync(configFile, "utf8")) as { mcpServers: Record<string, unknown>; plugins: Record<string, unknown> };
    document.mcpServers["docs-helper:shadowed"] = { command: "/nonexistent/configured-wins" };
    fs.writeFileSync(configFile, JSON.stringify(document));
    const servers = (JSON.parse((await run(["list", "--json"])).stdout) as { servers: { name: string; state: string; reason?: string }[] }).servers;
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(byName["docs-helper:search"]?.state).toBe("connected");
    expect(byName["docs-helper:remote"]).toMatchObject({ state: "unavailable", reason: "'url' is empty" });
    expect(byName["docs-helper:shadowed"]).toMatchObject({ state: "unavailable", reason: "command not found (/nonexistent/configured-wins)" });
    const call = await run(["call", "docs-helper:search.echo", "--args", '{"text":"from a plugin"}']);
    expect([call.code, call.stdout]).toEqual([0, "from a plugin\n"]);

    document.plugins["docs-helper"] = { enabled: false };
    fs.writeFileSync(configFile, JSON.stringify(document));
    const after = (JSON.parse((await run(["list", "--json", "--cached"])).stdout) as { servers: { name: string }[] }).servers.map((s) => s.name);
    expect(after.filter((name) => name.startsWith("docs-helper:"))).toEqual(["docs-helper:shadowed"]);
  });

  it("shows the running agent's recorded states without connecting anything itself; --probe connects from here", async () => {
    fs.writeFileSync(path.join(temp.dir, "config.yaml"), "data_dir: data\n");
    const document = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")) as { mcpServers: Record<string, McpServerEntry> };
    // This test process plays the agent: a manager over two of the servers, its states recorded where the agent records them.
    const manager = new McpManager({ mcp: { connect_timeout_ms: 20_000, call_timeout_ms: 20_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "agent-catalog") }, env: { PATH: process.env.PATH } }, { test: document.mcpServers.test as McpServerEntry, broken: document.mcpServers.broken as McpServerEntry });
    const recorder = new McpStatusRecorder({ dir: path.join(temp.dir, "data", "mcp-status"), manager, replica: "agent-a" });
    try {
      await manager.connectAll({ once: true });
      await recorder.start();
      const before = starts();
      const listed = JSON.parse((await run(["list", "--json"])).stdout) as { source: string; note: string; servers: { name: string; state: string; toolCount?: number; protocolVersion?: string; reason?: string }[] };
      expect(listed).toMatchObject({ source: "agent", note: expect.stringContaining("agent-a") });
      const byName = Object.fromEntries(listed.servers.map((server) => [server.name, server]));
      expect(byName.test).toMatchObject({ state: "connected", toolCount: 7, protocolVersion: "2025-11-25" });
      expect(byName.broken).toMatchObject({ state: "unavailable", reason: expect.stringContaining("command not found") });
      expect(byName.everything).toMatchObject({ state: "unknown", reason: expect.stringContaining("has not reported it yet") });
      expect(byName.off?.state).toBe("disabled");
      expect(starts()).toBe(before);
      const table = await run(["list"]);
      expect(table.stdout).toMatch(/^test\s+stdio\s+connected\s+7/m);
      expect(table.stdout).toContain("(states as the running agent server agent-a recorded them; --probe connects from here instead)");

      const probed = JSON.parse((await run(["list", "--json", "--probe"])).stdout) as { source: string; servers: { name: string; state: string }[] };
      expect(probed.source).toBe("probe");
      expect(probed.servers.find((server) => server.name === "everything")?.state).toBe("connected");
      expect(starts()).toBe(before + 1);
    } finally {
      await recorder.stop();
      await manager.close();
    }
    // Stopped: the CLI probes again by itself.
    expect((JSON.parse((await run(["list", "--json"])).stdout) as { source: string }).source).toBe("probe");
  });

  it("shows progress on a terminal only", async () => {
    const onTerminal = await run(["list"], { tty: true });
    expect(onTerminal.stderr).toContain("connecting to 4 MCP servers...");
    expect(onTerminal.stderr).toMatch(/connecting to MCP servers 4\/4: \S+/);
    expect(onTerminal.stderr.endsWith("\r\x1b[2K")).toBe(true);
    expect((await run(["list", "--json"])).stderr).toBe("");
  });

  it("lists one server's tools, live or from the cache without connecting", async () => {
    const live = await run(["list", "--server", "test"]);
    expect(live.code).toBe(0);
    expect(live.stdout.split("\n")[0]).toBe("test (stdio, connected, 7 tools)");
    expect(live.stdout).toMatch(/^ {2}echo\s+Echoes text back, as text and as structured content\.$/m);
    expect(starts()).toBe(1);
    const cached = await run(["list", "--server", "test", "--cached", "--json"]);
    const parsed = JSON.parse(cached.stdout) as { server: { state: string; toolsFrom: string }; tools: { name: string; inputSchema: unknown }[] };
    expect(parsed.server).toMatchObject({ state: "idle", toolsFrom: "cache" });
    expect(parsed.tools.find((t) => t.name === "echo")?.inputSchema).toMatchObject({ required: ["text"] });
    expect(starts()).toBe(1);
    const noCache = await run(["list", "--server", "everything", "--cached"]);
    expect([noCache.code, noCache.stderr]).toEqual([1, expect.stringContaining("no cached tool list for MCP server 'everything'")]);
  });
});

describe("thinktank mcp call", () => {
  it("prints a tool's text, or the whole result with --json (structuredContent kept)", async () => {
    const text = await run(["call", "everything.echo", "--args", '{"message":"hi there"}']);
    expect([text.code, text.stdout]).toEqual([0, "Echo: hi there\n"]);
    const json = await run(["call", "test.echo", "--args", '{"text":"structured"}', "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ content: [{ type: "text", text: "structured" }], structuredContent: { echoed: "structured" } });
  });

  it("writes the result to a file with --output", async () => {
    const result = await run(["call", "everything.get-sum", "--args", '{"a":20,"b":22}', "--output", "sum.txt"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^wrote \d+ bytes to .*sum\.txt\n$/);
    expect(fs.readFileSync(path.join(temp.dir, "sum.txt"), "utf8")).toContain("42");
  });

  it("reports a tool's own error on stderr with exit code 1", async () => {
    const result = await run(["call", "test.fail"]);
    expect([result.code, result.stdout]).toEqual([1, ""]);
    expect(result.stderr).toBe("test.fail reported an error:\nfailure number 1\n");
  });

  it("asks for each parameter with --interactive, typed by the schema, and asks again on a bad answer", async () => {
    const result = await run(["call", "everything.get-sum", "--interactive"], { tty: true, input: ["forty", "40", "2"] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("42");
    expect(result.stderr).toContain("a* (number)");
    expect(result.stderr).toContain("expected a number, got 'forty'");
    const prefilled = await run(["call", "everything.get-sum", "--interactive", "--args", '{"a":1}'], { tty: true, input: ["5"] });
    expect(prefilled.stdout).toContain("6");
    expect(prefilled.stderr).not.toContain("a* (number)");
  });

  it.each<[string, string[], number, string]>([
    ["an unknown server", ["call", "nope.echo"], 1, "MCP_SERVER_NOT_FOUND: no MCP server named 'nope'"],
    ["an unknown tool", ["call", "test.nope"], 1, "MCP_TOOL_NOT_FOUND: MCP server 'test' has no tool 'nope'"],
    ["--args that is not JSON", ["call", "test.echo", "--args", "{text:"], 1, "INVALID_JSON: --args is not valid JSON"],
    ["--args that is a list", ["call", "test.echo", "--args", "[1]"], 1, "--args must be a JSON object of the tool's arguments, got a list"],
    ["a target without a tool", ["call", "test"], 2, "expected SERVER.TOOL, got 'test'"],
    ["no target", ["call"], 2, "expected one SERVER.TOOL, got none"],
    ["an unknown option", ["call", "test.echo", "--bogus"], 2, "Unknown option '--bogus'"],
    ["--interactive without a terminal", ["call", "test.echo", "--interactive"], 2, "--interactive needs a terminal on standard input"],
    ["a bad --timeout", ["call", "test.echo", "--timeout", "soon"], 2, "--timeout expects milliseconds"],
    ["a disabled server", ["call", "off.anything"], 1, "SERVICE_UNAVAILABLE: MCP server 'off' is disabled"],
    ["a server with an unset variable", ["call", "needs-token.anything"], 1, "MCP server 'needs-token' is unavailable: environment variable $THINKTANK_TEST_TOKEN is not set"],
    ["a server that cannot start", ["call", "broken.anything"], 1, "MCP server 'broken' is unavailable: command not found"],
    ["an unknown subcommand", ["frobnicate"], 2, "unknown subcommand 'frobnicate'"],
  ])("rejects %s clearly", async (_label, args, code, message) => {
    const result = await run(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe("");
  });

  it("times out with --timeout and says so", async () => {
    const result = await run(["call", "test.hang", "--timeout", "300"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("MCP_CALL_TIMEOUT: MCP server 'test' did not answer tools/call hang within 300 ms");
  });
});

describe("thinktank mcp list and the MCP protocol eras", () => {
  it("shows a 2026-07-28 server connected with its version, and a server of neither era unavailable with PROTOCOL_UNSUPPORTED and the versions tried", async () => {
    const { eraStdioEntry } = await import("@thinktank/mcp/testing");
    const servers = { modern: eraStdioEntry({ sdk: "v2", era: "modern" }), future: eraStdioEntry({ sdk: "v1", era: "neither" }) };
    fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: servers, skills: {}, plugins: {}, tools: {} }, null, 2));
    const json = await run(["list", "--json"]);
    const listed = (JSON.parse(json.stdout) as { servers: Record<string, unknown>[] }).servers;
    const byName = Object.fromEntries(listed.map((server) => [server.name, server]));
    expect(byName.modern).toMatchObject({ state: "connected", protocolVersion: "2026-07-28", toolCount: 2 });
    expect(byName.future).toMatchObject({ state: "unavailable", code: "PROTOCOL_UNSUPPORTED", versionsTried: ["2026-07-28 (server/discover)", "2025-11-25 (initialize)"], versionsOffered: ["2099-01-01"] });
    const table = await run(["list"]);
    expect(table.stdout).toMatch(/future\s+stdio\s+unavailable\s+-\s+PROTOCOL_UNSUPPORTED: the server speaks no MCP protocol version Thinktank speaks/);
  }, 60_000);
});
