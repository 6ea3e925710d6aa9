import fs from "node:fs";
import path from "node:path";
import { referenceStdioEntry, testServerEntry } from "@thinktank/mcp/testing";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// `thinktank exec` end to end: a config folder, real MCP servers, the sandbox (auto: bubblewrap where it works, else deno).
let temp: { dir: string; cleanup: () => void };

beforeAll(() => {
  temp = makeTempDir("tt-cli-exec-");
  // The unprivileged sandbox user must reach the workspaces when the tests run as root.
  fs.chmodSync(temp.dir, 0o755);
  fs.writeFileSync(path.join(temp.dir, "config.yaml"), "code_execution:\n  max_stdout_bytes: 500\nsandbox:\n  warm_pool_size: 0\n");
  const servers = { everything: referenceStdioEntry("server-everything"), test: testServerEntry(), off: { ...testServerEntry(), enabled: false } };
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: servers, skills: {}, plugins: {}, tools: {} }, null, 2));
  fs.writeFileSync(path.join(temp.dir, "sum.ts"), 'import { getSum } from "servers/everything";\nconst result = await getSum({ a: 2, b: 3 });\nconsole.log(JSON.stringify(result));\n');
  fs.writeFileSync(path.join(temp.dir, "echo.py"), 'from servers.test import echo\nimport sys\nprint(echo(text="from python")["echoed"])\nprint("to stderr", file=sys.stderr)\nsys.exit(4)\n');
});
afterAll(() => temp.cleanup());

async function run(args: string[], input?: string): Promise<CapturedRun> {
  return runCaptured(["exec", ...args], { cwd: temp.dir, ...(input === undefined ? {} : { input }) });
}

describe("thinktank exec", () => {
  it("runs a TypeScript file against the configured servers and passes its output through", async () => {
    const result = await run(["sum.ts"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/5/);
  }, 120_000);

  it("runs Python by extension and returns the program's exit code and stderr", async () => {
    const result = await run(["echo.py"]);
    expect(result).toEqual({ code: 4, stdout: "from python\n", stderr: "to stderr\n" });
  }, 120_000);

  it("reads the program from stdin with --language, and --json prints execute_code's result", async () => {
    const result = await run(["-", "--language", "javascript", "--json"], 'import { echo } from "servers/test"; console.log((await echo({ text: "stdin" })).echoed);');
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { exit_code: number; stdout: string; tools_called: { tool: string; status: string }[]; duration_ms: number };
    expect(parsed).toMatchObject({ exit_code: 0, stdout: "stdin\n", stderr: "", tools_called: [{ tool: "test.echo", status: "ok" }] });
    expect(parsed.duration_ms).toBeGreaterThan(0);
    // Which backend ran it (auto: bubblewrap where it works, else deno) and what it isolates.
    expect((parsed as unknown as { sandbox: unknown }).sandbox).toMatchObject({ backend: expect.stringMatching(/^(bubblewrap|deno)$/), isolated: true, isolation: expect.any(String), memory: { mode: expect.stringMatching(/^(cgroup-v2|cgroup-v1|per-process)$/), description: expect.any(String) } });
  }, 120_000);

  it("refuses a disabled server, truncates output at the configured cap, and reports a timeout", async () => {
    const disabled = await run(["-", "--json"], 'import { callMCPTool } from "/mnt/code-api/runtime/call-mcp-tool.ts"; try { await callMCPTool("off", "echo", { text: "x" }); } catch (error) { console.log(error.code); }');
    expect(JSON.parse(disabled.stdout)).toMatchObject({ stdout: "MCP_SERVER_NOT_FOUND\n", tools_called: [{ tool: "off.echo", status: "error", error: { code: "MCP_SERVER_NOT_FOUND" } }] });
    const flood = await run(["-"], 'console.log("z".repeat(5000));');
    expect(flood.stdout).toMatch(/^z{500}\n\[\.\.\. truncated 4,501 bytes \.\.\.\]$/);
    const slow = await run(["-", "--timeout", "1"], "await new Promise(() => setInterval(() => {}, 1000));");
    expect(slow.code).toBe(1);
    expect(slow.stderr).toContain("thinktank exec: SANDBOX_TIMEOUT: The program ran longer than 1,000 ms");
  }, 120_000);

  it("reports a program that does not build, and usage errors with exit code 2", async () => {
    const broken = await run(["-"], "const = 1;");
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^program\.ts:1:\d+: error: [\s\S]*\nthinktank exec: CODE_BUILD_FAILED: /);
    expect((await run([])).code).toBe(2);
    expect((await run(["x.rb", "--language", "ruby"])).stderr).toContain("--language must be one of typescript, javascript, python, got 'ruby'");
    expect((await run(["sum.ts", "--timeout", "soon"])).code).toBe(2);
    const missing = await run(["missing.ts"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read the program");
  }, 120_000);
});

describe("thinktank exec with sandbox.network.allow", () => {
  it("reaches the configured host through the sandbox's egress proxy, and nothing else", async () => {
    const http = await import("node:http");
    const server = http.createServer((request, response) => response.end(`reached ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const folder = makeTempDir("tt-cli-exec-network-");
    try {
      fs.chmodSync(folder.dir, 0o755);
      fs.writeFileSync(path.join(folder.dir, "config.yaml"), `sandbox:\n  warm_pool_size: 0\n  network:\n    allow: ["127.0.0.1:${port}"]\n    allowed_private: ["127.0.0.1:${port}"]\n`);
      fs.writeFileSync(path.join(folder.dir, "extensions_config.json"), JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
      const other = port === 65535 ? port - 1 : port + 1;
      const program = `for (const url of ["http://127.0.0.1:${port}/cli", "http://127.0.0.1:${other}/other"]) { const response = await fetch(url); console.log(response.status, (await response.text()).trim()); }`;
      const result = await runCaptured(["exec", "-", "--language", "javascript"], { cwd: folder.dir, input: program });
      expect(result.stderr).toBe("");
      const [allowed, refused] = result.stdout.split("\n");
      expect(allowed).toBe("200 reached /cli");
      expect(refused).toBe(`403 127.0.0.1:${other} refused: port ${other} is not allowed for it (allowed: 127.0.0.1:${port})`);
    } finally {
      folder.cleanup();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);
});
