// The local backend: no isolation, by explicit opt-in only; timeouts, caps and a clean environment still hold.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeMinimumMemoryMb } from "../launch/limit-arguments.js";
import { processesWithMarker, sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

describe("local backend", () => {
  let fixture: SandboxFixture;
  let workspace: string;
  const secret = `local-secret-${process.pid}`;
  beforeAll(() => {
    process.env.THINKTANK_LOCAL_FAKE_SECRET = secret;
    fixture = sandboxFixture({ backend: "local", warmPoolSize: 1 });
    workspace = fixture.workspace("local");
  });
  afterAll(async () => {
    delete process.env.THINKTANK_LOCAL_FAKE_SECRET;
    await fixture.cleanup();
  });

  it("says plainly that it does not isolate", async () => {
    const check = await fixture.executor.check();
    expect(check.ok).toBe(true);
    expect(check.isolated).toBe(false);
    expect(check.summary).toContain("WITHOUT isolation");
  });

  it.each([
    ["javascript", "console.log(process.cwd(), JSON.stringify(process.env))"],
    ["python", "import os; print(os.getcwd(), dict(os.environ))"],
    ["shell", "pwd; env"],
  ] as const)("runs %s in the workspace with a clean environment", async (language, source) => {
    const result = await fixture.executor.run({ language, source, workspaceDir: workspace, env: { MINE: "yes" } });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toContain(workspace);
    expect(result.stdout).toContain("MINE");
    expect(result.stdout).not.toContain(secret);
  });

  it("kills the whole process tree at the timeout, detached children included", async () => {
    const marker = `tt-local-timeout-${process.pid}-${Date.now()}`;
    const source = `import { spawn } from "node:child_process";
      for (let i = 0; i < 3; i++) spawn("/bin/sh", ["-c", "sleep 1000; : ${marker}"], { detached: true, stdio: "ignore" }).unref();
      setInterval(() => {}, 1000);`;
    const running = fixture.executor.run({ language: "javascript", source, workspaceDir: workspace, timeoutMs: 2_000 });
    // The children really ran (a shell between fork and exec shows the marker too).
    await expect.poll(() => processesWithMarker(marker).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    const result = await running;
    expect(result.timedOut).toBe(true);
    expect(result.error?.code).toBe("SANDBOX_TIMEOUT");
    await expect.poll(() => processesWithMarker(marker), { timeout: 5_000 }).toEqual([]);
  });

  it("kills what a finished program left running in the background", async () => {
    const marker = `tt-local-straggler-${process.pid}-${Date.now()}`;
    const result = await fixture.executor.run({ language: "shell", source: `sh -c 'sleep 1000; : ${marker}' & echo started`, workspaceDir: workspace });
    expect(result.stdout).toBe("started\n");
    await expect.poll(() => processesWithMarker(marker), { timeout: 5_000 }).toEqual([]);
  });

  it("caps output and stops a flood", async () => {
    const result = await fixture.executor.run({ language: "python", source: "import sys\nwhile True: sys.stdout.write('z' * 65536)", workspaceDir: workspace, limits: { maxStdoutBytes: 100, killAfterOutputBytes: 4 * 1024 * 1024 } });
    expect(result.limit).toBe("output");
    expect(result.stdout).toMatch(/^z{100}\n\[\.\.\. truncated [\d,]+ bytes; output limit reached, program stopped \.\.\.\]$/);
  });

  it("applies the memory limit", async () => {
    const result = await fixture.executor.run({ language: "python", source: "hoard = []\nwhile True: hoard.append(bytearray(8 * 1024 * 1024))", workspaceDir: workspace, limits: { memoryMb: 128 } });
    expect(result.limit).toBe("memory");
  });

  it("refuses at once a JavaScript program whose memory limit node cannot start under", async () => {
    const result = await fixture.executor.run({ language: "javascript", source: "console.log('ran')", workspaceDir: workspace, limits: { memoryMb: 32 }, timeoutMs: 20_000 });
    expect(result.durationMs).toBeLessThan(5_000); // it hung until the timeout
    expect(result.limit).toBe("memory");
    expect(result.error?.message).toContain(`at least ${nodeMinimumMemoryMb()} MiB`);
  });

  it("points the program at the host bridge socket directly", async () => {
    const socketDir = path.join(fixture.root, "bridge");
    fs.mkdirSync(socketDir);
    const net = await import("node:net");
    const socketPath = path.join(socketDir, "bridge.sock");
    const server = net.createServer((socket) => socket.end("pong"));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const source = `import net from "node:net"; net.connect(process.env.THINKTANK_BRIDGE_SOCKET).on("data", (data) => console.log(process.env.THINKTANK_BRIDGE_SOCKET, String(data)));`;
      const result = await fixture.executor.run({ language: "javascript", source, workspaceDir: workspace, bridgeSocket: socketPath });
      expect(result.stdout).toBe(`${socketPath} pong\n`);
    } finally {
      server.close();
    }
  });
});
