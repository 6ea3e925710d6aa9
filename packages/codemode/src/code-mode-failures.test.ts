// execute_code when things go wrong: a server killed mid-call, a hanging server, a program that
// loops or floods, bad input, a build error, no sandbox, a program that makes very many calls.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { referenceStdioEntry, testServerEntry, waitFor } from "@thinktank/mcp/testing";
import { createSandboxExecutor } from "@thinktank/sandbox";
import { freePort, needs, processesWithMarker } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeMode } from "./code-mode.js";
import { codeModeFixture, type CodeModeFixture } from "./test-support/code-mode-fixture.js";

describe("a server killed in the middle of a call", () => {
  let fixture: CodeModeFixture;
  let refuseFile: string;
  let startLog: string;
  let callLog: string;

  beforeAll(async () => {
    fixture = codeModeFixture({
      servers: (root) => {
        refuseFile = path.join(root, "refuse");
        startLog = path.join(root, "starts.log");
        callLog = path.join(root, "calls.log");
        return { test: testServerEntry({ TEST_SERVER_REFUSE_FILE: refuseFile, TEST_SERVER_START_LOG: startLog, TEST_SERVER_CALL_LOG: callLog }), everything: referenceStdioEntry("server-everything") };
      },
      mcp: { retries: 2, retry_base_delay_ms: 100 },
    });
    await fixture.codeMode.prepare();
  }, 120_000);
  afterAll(async () => fixture?.cleanup());

  it("is retried, then fails with SERVICE_UNAVAILABLE in tools_called and stderr; the other servers keep working", async () => {
    const pid = fixture.manager.statusOf("test").pid as number;
    const code = `
import fs from "node:fs";
import { slow } from "servers/test";
import { echo } from "servers/everything";
fs.writeFileSync("calling", "");
try {
  await slow({ ms: 60000 });
  console.log("slow answered");
} catch (error) {
  console.error("slow failed:", error.code, error.message);
}
console.log(JSON.stringify(await echo({ message: "still here" })));
`;
    const running = fixture.codeMode.executeCode({ code }, { threadId: "crash" });
    const marker = path.join(fixture.executor.workspaceFor("crash"), "calling");
    await waitFor("the program to reach its call", () => fs.existsSync(marker));
    await waitFor("the call to reach the server", () => fs.existsSync(callLog) && fs.readFileSync(callLog, "utf8").includes("slow\n"));
    fs.writeFileSync(refuseFile, "");
    process.kill(pid, "SIGKILL");
    const result = await running;
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.exit_code).toBe(0);
    expect(result.stderr).toMatch(/slow failed: SERVICE_UNAVAILABLE .*MCP server 'test' is unavailable after 3 attempts/);
    expect(result.stdout).toContain("Echo: still here");
    expect(result.tools_called.map((call) => [call.tool, call.status, call.error?.code])).toEqual([
      ["test.slow", "error", "SERVICE_UNAVAILABLE"],
      ["everything.echo", "ok", undefined],
    ]);
    // The restarts were attempted: one start at prepare, then one per retry (each refused).
    expect(fs.readFileSync(startLog, "utf8").trim().split("\n").length).toBeGreaterThanOrEqual(3);

    // Once the server can start again, the next call restarts it.
    fs.rmSync(refuseFile);
    const again = await fixture.codeMode.executeCode({ code: 'import { echo } from "servers/test"; console.log(JSON.stringify(await echo({ text: "back" })));' }, { threadId: "crash" });
    expect(again.stdout).toBe('{"echoed":"back"}\n');
    expect(fixture.manager.statusOf("test").pid).not.toBe(pid);
  }, 120_000);
});

describe("timeouts, floods, bad input", () => {
  let fixture: CodeModeFixture;

  beforeAll(async () => {
    fixture = codeModeFixture({
      servers: () => ({ test: testServerEntry() }),
      mcp: { call_timeout_ms: 1500, retries: 0 },
      codeExecution: { timeout_seconds: 60, max_timeout_seconds: 90, max_stdout_bytes: 2000, max_stderr_bytes: 1000 },
      codeMode: { maxToolCallRecords: 20 },
    });
    await fixture.codeMode.prepare();
  }, 120_000);
  afterAll(async () => fixture?.cleanup());

  it("a hanging tool: the call times out with MCP_CALL_TIMEOUT and the program carries on", async () => {
    const code = `
import { hang, echo } from "servers/test";
try { await hang(); } catch (error) { console.log("hang:", error.code); }
console.log((await echo({ text: "after" })).echoed);
`;
    const result = await fixture.codeMode.executeCode({ code }, { threadId: "hang" });
    expect(result.stdout).toBe("hang: MCP_CALL_TIMEOUT\nafter\n");
    expect(result.tools_called[0]).toMatchObject({ tool: "test.hang", status: "error", error: { code: "MCP_CALL_TIMEOUT" } });
    expect(result.tools_called[0]?.ms).toBeGreaterThanOrEqual(1400);
  }, 60_000);

  it("a program that loops forever is stopped at its timeout", async () => {
    const result = await fixture.codeMode.executeCode({ code: "while (true) {}", language: "javascript", timeout: 2 }, { threadId: "loop" });
    expect(result).toMatchObject({ exit_code: null, error: { code: "SANDBOX_TIMEOUT" } });
    expect(result.duration_ms).toBeGreaterThanOrEqual(2000);
    expect(result.duration_ms).toBeLessThan(30_000);
  }, 60_000);

  // Real subprocesses need bubblewrap (on deno Python is Pyodide, which starts none); the next test holds on every backend.
  it("a program whose signal aborts is killed with every process it started, and answers CANCELLED once they are gone", { ...needs("bubblewrap"), timeout: 60_000 }, async () => {
    const seconds = `30.${process.pid}${Date.now() % 100_000}`;
    const controller = new AbortController();
    const code = `import subprocess\nsubprocess.run(["sleep", "${seconds}"])\nprint("never")\n`;
    const running = fixture.codeMode.executeCode({ code, language: "python" }, { threadId: "cancel", signal: controller.signal });
    await waitFor("the program's sleep to start", () => processesWithMarker(`sleep\u0000${seconds}`).length > 0);
    controller.abort();
    const result = await running;
    expect(processesWithMarker(`sleep\u0000${seconds}`)).toEqual([]);
    expect(result).toMatchObject({ exit_code: null, stdout: "", error: { code: "CANCELLED" } });
  });

  it("on any backend, a cancelled program that never ends answers CANCELLED once its sandbox's processes are gone", async () => {
    const controller = new AbortController();
    const started = path.join(fixture.executor.workspaceFor("cancel-loop"), "started");
    const code = `open("started", "w").close()\nwhile True:\n    pass\n`;
    const running = fixture.codeMode.executeCode({ code, language: "python" }, { threadId: "cancel-loop", signal: controller.signal });
    await waitFor("the program to start", () => fs.existsSync(started));
    controller.abort();
    const result = await running;
    // Every sandbox process of this fixture runs from its runtime folder (named on its command line).
    expect(processesWithMarker(path.join(fixture.root, "sandbox-runtime"))).toEqual([]);
    expect(result).toMatchObject({ exit_code: null, stdout: "", error: { code: "CANCELLED" } });
  }, 60_000);

  it("a Python program that loops forever is stopped too", async () => {
    const result = await fixture.codeMode.executeCode({ code: "while True:\n    pass\n", language: "python", timeout: 1.5 }, { threadId: "loop" });
    expect(result.error?.code).toBe("SANDBOX_TIMEOUT");
  }, 60_000);

  it("output beyond max_stdout_bytes / max_stderr_bytes is cut with a visible marker", async () => {
    const result = await fixture.codeMode.executeCode({ code: 'console.log("o".repeat(50000)); console.error("e".repeat(50000)); console.log("end");' }, { threadId: "flood" });
    expect(result.exit_code).toBe(0);
    expect(result.stdout.length).toBeLessThan(2100);
    expect(result.stdout).toMatch(/^o{2000}\n\[\.\.\. truncated 48,005 bytes \.\.\.\]$/);
    expect(result.stderr).toMatch(/^e{1000}\n\[\.\.\. truncated 49,001 bytes/);
  }, 60_000);

  it("a program that floods without end is stopped", async () => {
    const result = await fixture.codeMode.executeCode({ code: 'const chunk = "x".repeat(65536); for (;;) await new Promise((done) => process.stdout.write(chunk, done));', timeout: 60 }, { threadId: "flood" });
    expect(result.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(result.stdout.length).toBeLessThan(2200);
    expect(result.stdout, JSON.stringify({ ...result, stdout: result.stdout.slice(-200) })).toContain("output limit reached, program stopped");
  }, 60_000);

  it("caps the timeout at max_timeout_seconds instead of refusing it", async () => {
    const result = await fixture.codeMode.executeCode({ code: "console.log(1)", timeout: 100_000 }, { threadId: "cap" });
    expect(result).toMatchObject({ exit_code: 0, stdout: "1\n" });
  }, 60_000);

  it("refuses bad input with VALIDATION_FAILED and a program that does not build with CODE_BUILD_FAILED", async () => {
    const empty = await fixture.codeMode.executeCode({ code: "" });
    expect(empty).toMatchObject({ exit_code: null, error: { code: "VALIDATION_FAILED", message: expect.stringContaining("code:") } });
    const ruby = await fixture.codeMode.executeCode({ code: "puts 1", language: "ruby" as never });
    expect(ruby.error).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("language") });
    const badThread = await fixture.codeMode.executeCode({ code: "console.log(1)" }, { threadId: "../escape" });
    expect(badThread.error?.code).toBe("VALIDATION_FAILED");
    const broken = await fixture.codeMode.executeCode({ code: 'import x from "lodash";\nconsole.log(x);', language: "javascript" });
    expect(broken).toMatchObject({ exit_code: null, error: { code: "CODE_BUILD_FAILED" }, tools_called: [] });
    expect(broken.stderr).toContain('program.js:1:15: error: cannot import "lodash"');
  }, 60_000);

  it("a program's uncaught tool failure ends it with exit code 1 and the error on stderr", async () => {
    const result = await fixture.codeMode.executeCode({ code: 'import { echo } from "servers/test"; await echo({ text: 5 } as never);' }, { threadId: "uncaught" });
    expect(result.exit_code).toBe(1);
    expect(result.stderr).toMatch(/VALIDATION_FAILED|invalid arguments for test\.echo/);
    expect(result.tools_called).toEqual([expect.objectContaining({ tool: "test.echo", status: "error", error: expect.objectContaining({ code: "VALIDATION_FAILED" }) })]);
  }, 60_000);

  it("keeps the first calls of a very chatty program and counts the rest", async () => {
    const result = await fixture.codeMode.executeCode({ code: 'import { echo } from "servers/test"; for (let i = 0; i < 30; i++) await echo({ text: String(i) }); console.log("done");' }, { threadId: "chatty" });
    expect(result.stdout).toBe("done\n");
    expect(result.tools_called).toHaveLength(20);
    expect(result.tools_called_omitted).toBe(10);
  }, 60_000);

  it("reaches no network but the bridge", async () => {
    const port = await freePort();
    const server = http.createServer((_request, response) => response.end("reachable")).listen(port, "127.0.0.1");
    try {
      const result = await fixture.codeMode.executeCode({ code: `try { console.log(await (await fetch("http://127.0.0.1:${port}/")).text()); } catch (error) { console.log("blocked", error.cause?.code ?? error.message); }` }, { threadId: "net" });
      expect(result.stdout).toMatch(/^blocked /);
      expect(result.stdout).not.toContain("reachable");
    } finally {
      server.close();
    }
  }, 60_000);
});

describe("no sandbox", () => {
  it("execute_code answers SANDBOX_UNAVAILABLE with what to install when the named backend cannot run", async () => {
    const fixture = codeModeFixture({ servers: () => ({}), sandbox: { backend: "bubblewrap" } });
    const executor = createSandboxExecutor({ config: fixture.config, bwrapCommand: "/nonexistent/bwrap", searchPath: "/nonexistent" });
    const codeMode = new CodeMode({ config: fixture.config, executor, invokers: [] });
    try {
      const result = await codeMode.executeCode({ code: "console.log(1)" }, { threadId: "t" });
      expect(result.exit_code).toBeNull();
      expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE");
      expect(result.error?.message).toMatch(/install bubblewrap|apt-get install/);
    } finally {
      await codeMode.close();
      await executor.close();
      await fixture.cleanup();
    }
  }, 60_000);
});
