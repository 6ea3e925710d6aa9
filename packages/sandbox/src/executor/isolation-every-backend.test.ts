// One isolation suite for every isolating backend (bubblewrap, deno): what a hostile program cannot
// reach or exhaust, whichever backend runs it. Backend-specific details live in sandbox-isolation.test.ts
// (bubblewrap) and deno-backend.test.ts.
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { repositoryRoot, needs } from "@thinktank/testing";
import { sandboxPaths } from "../sandbox-paths.js";
import type { SandboxRequest, SandboxResult } from "../sandbox-types.js";
import { processesWithMarker, sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

const secret = `thinktank-fake-secret-${process.pid}-${Date.now()}`;
const hostPasswdLine = fs.readFileSync("/etc/passwd", "utf8").split("\n")[0] as string;
const extensionsConfig = path.join(repositoryRoot(), "extensions_config.json");
const bridgeRuntime = path.join(repositoryRoot(), "packages/codegen/src/runtime/python");

// One suite per isolating backend; the bubblewrap one needs bubblewrap (skipped with the reason without it).
for (const backend of ["bubblewrap", "deno"] as const) describe(`isolation on the ${backend} backend`, backend === "bubblewrap" ? needs("bubblewrap") : {}, () => {
  let fixture: SandboxFixture;
  let workspace: string;
  let otherWorkspace: string;
  const run = (request: Omit<SandboxRequest, "workspaceDir">, dir = workspace): Promise<SandboxResult> => fixture.executor.run({ timeoutMs: 60_000, ...request, workspaceDir: dir });

  beforeAll(() => {
    process.env.THINKTANK_FAKE_SECRET = secret;
    fixture = sandboxFixture({ backend, sandbox: { disk_quota_mb: 8 } });
    workspace = fixture.workspace("isolated-a");
    otherWorkspace = fixture.workspace("isolated-b");
    fs.writeFileSync(path.join(otherWorkspace, "private.txt"), "thread b's data");
  });
  afterAll(async () => {
    delete process.env.THINKTANK_FAKE_SECRET;
    await fixture.cleanup();
  });

  it("reads no host file: not the host's /etc/passwd line, the project's extensions_config.json or another thread's workspace", async () => {
    expect(fs.readFileSync(extensionsConfig, "utf8").length).toBeGreaterThan(0); // the premise: it exists on the host
    const targets = ["/etc/passwd", extensionsConfig, path.join(otherWorkspace, "private.txt"), `${sandboxPaths.workspace}/../isolated-b/private.txt`];
    const js = await run({
      language: "javascript",
      source: `import fs from "node:fs";
        for (const target of ${JSON.stringify(targets)}) {
          try { console.log("READ", target, fs.readFileSync(target, "utf8")); } catch (error) { console.log("denied", target); }
        }`,
    });
    const python = await run({
      language: "python",
      source: `for target in ${JSON.stringify(targets)}:
    try:
        print("READ", target, open(target).read())
    except Exception:
        print("denied", target)`,
    });
    for (const result of [js, python]) {
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.stdout).not.toContain(hostPasswdLine);
      expect(result.stdout).not.toContain("thread b's data");
      expect(result.stdout).not.toContain("mcpServers");
      for (const target of targets.slice(1)) expect(result.stdout).toContain(`denied ${target}`);
    }
    const shell = await run({ language: "shell", source: `cat /etc/passwd ${extensionsConfig} ${path.join(otherWorkspace, "private.txt")}; echo done` });
    expect(shell.stdout).not.toContain(hostPasswdLine);
    expect(shell.stdout).not.toContain("thread b's data");
    expect(shell.stdout).toContain("done");
  });

  it("sees no host environment, only the request's", async () => {
    expect(process.env.THINKTANK_FAKE_SECRET).toBe(secret);
    const js = await run({ language: "javascript", source: "console.log(JSON.stringify(process.env))", env: { VISIBLE: "yes" } });
    const python = await run({ language: "python", source: "import os; print(dict(os.environ))", env: { VISIBLE: "yes" } });
    const shell = await run({ language: "shell", source: "env", env: { VISIBLE: "yes" } });
    for (const result of [js, python, shell]) {
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.stdout).toContain("VISIBLE");
      expect(result.stdout).not.toContain(secret);
      expect(result.stdout).not.toContain("THINKTANK_FAKE_SECRET");
    }
  });

  describe("network", () => {
    let tcpServer: net.Server;
    let tcpPort: number;
    let bridge: http.Server;
    let bridgeSocket: string;
    let hostConnections = 0;

    beforeAll(async () => {
      tcpServer = net.createServer((socket) => {
        hostConnections++;
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => tcpServer.listen(0, "127.0.0.1", resolve));
      tcpPort = (tcpServer.address() as net.AddressInfo).port;
      const bridgeDir = path.join(fixture.root, "bridge");
      fs.mkdirSync(bridgeDir, { mode: 0o700 });
      bridgeSocket = path.join(bridgeDir, "bridge.sock");
      bridge = http.createServer((request, response) => {
        let body = "";
        request.on("data", (chunk) => (body += chunk));
        request.on("end", () => {
          const { tool } = JSON.parse(body) as { tool: string };
          const authorized = request.headers.authorization === "Bearer bridge-token";
          response.writeHead(authorized ? 200 : 401, { "content-type": "application/json" });
          response.end(JSON.stringify(authorized ? { ok: true, isError: false, content: [{ type: "text", text: `bridged ${tool}` }] } : { ok: false, error: { code: "UNAUTHORIZED", message: "no" } }));
        });
      });
      await new Promise<void>((resolve) => bridge.listen(bridgeSocket, resolve));
    });
    afterAll(() => {
      tcpServer.close();
      bridge.close();
    });

    it("reaches the bridge and nothing else: no TCP to the host, no DNS (JavaScript)", async () => {
      const source = `import net from "node:net"; import http from "node:http"; import dns from "node:dns/promises";
        await new Promise((resolve) => { try { const socket = net.connect({ port: ${tcpPort}, host: "127.0.0.1" }); socket.setTimeout(5000, () => { console.log("tcp timeout"); resolve(); }); socket.on("data", () => { console.log("tcp CONNECTED"); resolve(); }); socket.on("error", () => { console.log("tcp blocked"); resolve(); }); } catch { console.log("tcp blocked"); resolve(); } });
        await dns.lookup("example.com").then(() => console.log("dns RESOLVED"), () => console.log("dns blocked")).catch(() => console.log("dns blocked"));
        await new Promise((resolve) => { const request = http.request({ socketPath: process.env.THINKTANK_BRIDGE_SOCKET, path: "/call", method: "POST", headers: { authorization: "Bearer " + process.env.THINKTANK_BRIDGE_TOKEN } }, (response) => { let text = ""; response.on("data", (chunk) => (text += chunk)); response.on("end", () => { console.log("bridge", response.statusCode, text); resolve(); }); }); request.on("error", (error) => { console.log("bridge failed", error.message); resolve(); }); request.end(JSON.stringify({ server: "s", tool: "from-js", arguments: {} })); });`;
      const result = await run({ language: "javascript", source, bridgeSocket, bridgeToken: "bridge-token" });
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.stdout).toMatch(/^tcp (blocked|timeout)/m);
      expect(result.stdout).toContain("dns blocked");
      expect(result.stdout).toContain("bridge 200");
      expect(result.stdout).toContain("bridged from-js");
      expect(hostConnections).toBe(0);
    });

    it("reaches the bridge through the generated Python runtime, and no TCP (Python)", async () => {
      const source = `import socket
from thinktank_bridge import call_mcp_tool
try:
    s = socket.create_connection(("127.0.0.1", ${tcpPort}), timeout=5)
    print("tcp CONNECTED")
except Exception as error:
    print("tcp blocked")
print("bridge", call_mcp_tool("s", "from-python"))`;
      const result = await run({
        language: "python",
        source,
        bridgeSocket,
        bridgeToken: "bridge-token",
        mounts: [{ hostPath: bridgeRuntime, sandboxPath: "/mnt/code-api-python" }],
        env: { PYTHONPATH: "/mnt/code-api-python" },
      });
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.stdout).toContain("tcp blocked");
      expect(result.stdout).toContain("bridge bridged from-python");
      expect(hostConnections).toBe(0);
    });
  });

  it("leaves no process behind at its timeout", async () => {
    // The thread id is on every worker's command line (its workspace folder), whatever the backend.
    const marker = `tt-outlive-${backend}-${process.pid}`;
    const dir = fixture.workspace(marker);
    const spawner = `import { spawn } from "node:child_process";
      try { spawn("/bin/sh", ["-c", "sleep 1000; : ${marker}"], { detached: true, stdio: "ignore" }).unref(); console.log("spawned"); } catch (error) { console.log("spawn refused"); }
      for (;;) {}`;
    const started = Date.now();
    const results = await Promise.all([run({ language: "javascript", source: spawner, timeoutMs: 1_500 }, dir), run({ language: "python", source: "while True:\n    pass", timeoutMs: 1_500 }, dir)]);
    for (const result of results) {
      expect(result.timedOut).toBe(true);
      expect(result.error?.code).toBe("SANDBOX_TIMEOUT");
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    await expect.poll(() => processesWithMarker(marker), { timeout: 5_000 }).toEqual([]);
  });

  it.each([
    ["javascript", "const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));"],
    ["javascript", "const hoard = []; for (;;) hoard.push(new Uint8Array(16 * 1024 * 1024).fill(1));"],
    ["python", "hoard = []\nwhile True:\n    hoard.append(bytearray(16 * 1024 * 1024))"],
  ] as const)("stops a %s memory flood and reports it", async (language, source) => {
    const result = await run({ language, source, limits: { memoryMb: 256 } });
    expect(result.limit, result.stderr.slice(0, 500)).toBe("memory");
    expect(result.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(result.timedOut).toBe(false);
  });

  it("caps an output flood and stops it past the hard cap", async () => {
    const flood = `const line = "x".repeat(1 << 20); for (let i = 0; i < 100; i++) console.log(line);`;
    const result = await run({ language: "javascript", source: flood });
    expect(result.stdoutTruncated).toBe(true);
    expect(result.limit).toBe("output");
    expect(result.stdout.length).toBeLessThan(fixture.config.code_execution.max_stdout_bytes + 200);
    const python = await run({ language: "python", source: "import sys\nfor _ in range(2000): sys.stderr.write('e' * 100)", limits: { maxStderrBytes: 500 } });
    expect(python.stderr).toBe(`${"e".repeat(500)}\n[... truncated 199,500 bytes ...]`);
  });

  it("holds the workspace's disk quota: stops a writer, then refuses runs until files are deleted", async () => {
    const dir = fixture.workspace(`quota-${backend}`);
    // 16 MiB, past the 8 MiB quota, then it waits to be stopped: the quota's look stops it
    // however slow the machine is (were it never stopped, the run would time out and fail here).
    const writer = `import fs from "node:fs";
      for (let i = 0; i < 16; i++) fs.writeFileSync("chunk-" + i + ".bin", new Uint8Array(1024 * 1024).fill(1));
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      console.log("wrote everything");`;
    const stopped = await run({ language: "javascript", source: writer, timeoutMs: 25_000 }, dir);
    expect(stopped.limit, stopped.stderr).toBe("disk");
    expect(stopped.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(stopped.stdout).not.toContain("wrote everything");
    expect(fs.readdirSync(dir).length).toBeLessThan(40);
    const refused = await run({ language: "python", source: "print('ran')" }, dir);
    expect(refused.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(refused.error?.message).toContain("sandbox.disk_quota_mb");
    expect(refused.stdout).toBe("");
    for (const file of fs.readdirSync(dir)) fs.rmSync(path.join(dir, file));
    const again = await run({ language: "python", source: "print('ran')" }, dir);
    expect(again.stdout).toBe("ran\n");
  });

  it("refuses the next run after a burst that passed the quota before the first look", async () => {
    const dir = fixture.workspace(`burst-${backend}`);
    const burst = await run({ language: "python", source: "open('burst.bin', 'wb').write(bytes(12 * 1024 * 1024))", limits: { maxFileMb: 64 } }, dir);
    expect(burst.exitCode === 0 || burst.limit === "disk").toBe(true);
    // The measurement after a run starts before the run resolves; the next run's check waits for it.
    const refused = await run({ language: "javascript", source: "console.log('ran')" }, dir);
    expect(refused.limit).toBe("disk");
    fs.rmSync(path.join(dir, "burst.bin"));
  });

  it("runs at most max_concurrent programs, queues max_queued more and turns the rest away with SANDBOX_BUSY", async () => {
    const capped = sandboxFixture({ backend, sandbox: { max_concurrent: 1, max_queued: 1 } });
    onTestFinished(() => capped.cleanup());
    const dir = capped.workspace("capped");
    const slow = { language: "javascript" as const, source: "await new Promise((resolve) => setTimeout(resolve, 1500)); console.log('slow done')", workspaceDir: dir, timeoutMs: 60_000 };
    const first = capped.executor.run(slow);
    const aborter = new AbortController();
    const queued = capped.executor.run({ ...slow, signal: aborter.signal });
    const busy = await capped.executor.run({ ...slow, source: "console.log('never')" });
    expect(busy.error?.code).toBe("SANDBOX_BUSY");
    expect(busy.error?.message).toContain("sandbox.max_concurrent");
    aborter.abort();
    expect((await queued).error?.code).toBe("CANCELLED"); // leaves the queue without running
    const later = capped.executor.run({ ...slow, source: "console.log('queued done')" });
    expect((await first).stdout).toBe("slow done\n");
    expect((await later).stdout).toBe("queued done\n");
  });
});
