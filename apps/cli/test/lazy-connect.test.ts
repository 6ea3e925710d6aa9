import fs from "node:fs";
import path from "node:path";
import { referenceStdioEntry, waitFor } from "@thinktank/mcp/testing";
import { makeTempDir, processesWithMarker } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// A healthy server, one that accepts stdio and never answers initialize, and one whose command
// does not exist: `exec` must not wait for any of them, `mcp list` for longer than the connect timeout.
const connectTimeoutMs = 3000;
const retries = 1;
let temp: { dir: string; cleanup: () => void };
let hangPids: string;

beforeAll(() => {
  temp = makeTempDir("tt-cli-lazy-");
  // The unprivileged sandbox user must reach the workspaces when the tests run as root.
  fs.chmodSync(temp.dir, 0o755);
  hangPids = path.join(temp.dir, "hang.pids");
  fs.writeFileSync(path.join(temp.dir, "config.yaml"), `mcp:\n  connect_timeout_ms: ${connectTimeoutMs}\n  retries: ${retries}\n  retry_base_delay_ms: 200\nsandbox:\n  warm_pool_size: 0\n`);
  const servers = {
    everything: referenceStdioEntry("server-everything"),
    hang: { command: process.execPath, args: ["-e", "require('fs').appendFileSync(process.argv[1], process.pid + '\\n'); setInterval(() => {}, 1e9);", hangPids] },
    broken: { command: "/nonexistent/thinktank-no-such-binary" },
  };
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: servers, skills: {}, plugins: {}, tools: {} }, null, 2));
});
afterAll(() => temp.cleanup());

async function timed(argv: string[], input?: string): Promise<CapturedRun & { ms: number }> {
  const started = performance.now();
  const result = await runCaptured(argv, { cwd: temp.dir, ...(input === undefined ? {} : { input }) });
  return { ...result, ms: performance.now() - started };
}

const startedHangs = (): number[] => (fs.existsSync(hangPids) ? fs.readFileSync(hangPids, "utf8").trim().split("\n").map(Number) : []);

/** The hanging servers are gone: found by their pid file on the command line (the pids they record are their pid namespace's). */
async function expectHangsGone(): Promise<void> {
  await waitFor("the hanging servers to be stopped", () => processesWithMarker(hangPids).length === 0, 5000);
}

describe("thinktank exec connects lazily", () => {
  it("runs a program that calls no tool at once, starting no server", async () => {
    // No server is started at all (the hanging one records its pid when it starts): the program did not wait
    // for any. Its duration is left unjudged: on the deno backend a cold Pyodide alone takes about 2 s.
    const typescript = await timed(["exec", "-"], "console.log(1);");
    expect([typescript.code, typescript.stdout, typescript.stderr]).toEqual([0, "1\n", ""]);
    const python = await timed(["exec", "-", "--language", "python"], "print(1)");
    expect([python.code, python.stdout, python.stderr]).toEqual([0, "1\n", ""]);
    expect(startedHangs()).toEqual([]);
  }, 60_000);

  it("connects the server a program imports, and only that one", async () => {
    const result = await timed(["exec", "-"], 'import { getSum } from "servers/everything";\nconsole.log(JSON.stringify(await getSum({ a: 2, b: 3 })));\n');
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toMatch(/5/);
    // Waiting for the hanging server would take (retries + 1) connect timeouts.
    expect(result.ms).toBeLessThan((retries + 1) * connectTimeoutMs);
    expect(startedHangs()).toEqual([]);
  }, 60_000);

  it("fails a program importing the hanging server's wrappers after one connect timeout, saying why", async () => {
    const result = await timed(["exec", "-"], 'import { anything } from "servers/hang";\nconsole.log(anything);\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`(the tools of server 'hang' are not known: it is unavailable (did not finish connecting within ${connectTimeoutMs} ms))`);
    expect(result.stderr).toContain("thinktank exec: CODE_BUILD_FAILED");
    expect(result.ms).toBeLessThan((retries + 1) * connectTimeoutMs);
    await expectHangsGone();
  }, 60_000);

  it("fails a call on the hanging server with a clear error after its connect timeout, and stops it", async () => {
    const program = 'import { callMCPTool } from "/mnt/code-api/runtime/call-mcp-tool.ts";\ntry { await callMCPTool("hang", "anything", {}); } catch (error) { console.log(`${error.code}: ${error.message}`); }\n';
    const before = startedHangs().length;
    const result = await timed(["exec", "-"], program);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^SERVICE_UNAVAILABLE: hang\\.anything: .*did not finish connecting within ${connectTimeoutMs} ms`));
    expect(result.ms).toBeGreaterThanOrEqual(connectTimeoutMs);
    expect(startedHangs()).toHaveLength(before + retries + 1);
    await expectHangsGone();
  }, 60_000);
});

describe("thinktank mcp list", () => {
  it("answers within the connect timeout with each server's real state", async () => {
    const json = await timed(["mcp", "list", "--json"]);
    expect(json.code).toBe(0);
    // The old retry loop took (retries + 1) connect timeouts for the hanging server.
    expect(json.ms).toBeLessThan(connectTimeoutMs + 1500);
    const servers = (JSON.parse(json.stdout) as { servers: { name: string; state: string; toolCount?: number; reason?: string }[] }).servers;
    expect(servers.map((s) => [s.name, s.state, s.toolCount ?? null])).toEqual([
      ["broken", "unavailable", null],
      ["everything", "connected", 13],
      ["hang", "timed_out", null],
    ]);
    expect(servers[0]?.reason).toBe("command not found (/nonexistent/thinktank-no-such-binary)");
    expect(servers[2]?.reason).toBe(`did not finish connecting within ${connectTimeoutMs} ms`);
    await expectHangsGone();

    const table = await timed(["mcp", "list"]);
    expect(table.stdout).toMatch(/^hang\s+stdio\s+timed out\s+-\s+did not finish connecting/m);
    expect(table.ms).toBeLessThan(connectTimeoutMs + 1500);
    await expectHangsGone();
  }, 60_000);
});
