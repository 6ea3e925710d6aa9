// Limits: a program cannot outlive its timeout (children included), exhaust memory or the process
// table, burn CPU forever, write huge files or flood the output.
import { needs } from "@thinktank/testing";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processesWithMarker, sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxRequest, SandboxResult } from "../sandbox-types.js";
import { nodeMinimumMemoryMb } from "../launch/limit-arguments.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("bubblewrap sandbox limits", needs("bubblewrap"), () => {
  let fixture: SandboxFixture;
  let workspace: string;
  const run = (request: Omit<SandboxRequest, "workspaceDir">): Promise<SandboxResult> => fixture.executor.run({ timeoutMs: 60_000, ...request, workspaceDir: workspace });

  beforeAll(() => {
    fixture = sandboxFixture();
    workspace = fixture.workspace("limits");
  });
  afterAll(() => fixture.cleanup());

  /** Runs a request while watching the host for processes carrying `marker`; returns the result and the most seen at once. */
  async function watch(marker: string, request: Omit<SandboxRequest, "workspaceDir">): Promise<{ result: SandboxResult; peak: number }> {
    let peak = 0;
    let done = false;
    const running = run(request).finally(() => (done = true));
    while (!done) {
      peak = Math.max(peak, processesWithMarker(marker).length);
      await sleep(50); // a sampling interval for the peak count while the run goes on, not a wait for an event
    }
    return { result: await running, peak };
  }

  it.each([
    ["javascript", (marker: string) => `import { spawn } from "node:child_process";
      for (let i = 0; i < 3; i++) spawn("/bin/sh", ["-c", "sleep 1000; : ${marker}"], { detached: true, stdio: "ignore" }).unref();
      spawn("/bin/sh", ["-c", "(setsid sh -c 'sleep 1000; : ${marker}' &) ; sleep 1000; : ${marker}"], { stdio: "ignore" });
      setInterval(() => {}, 1000);`],
    ["python", (marker: string) => `import os, subprocess, time
for _ in range(3):
    subprocess.Popen(["/bin/sh", "-c", "sleep 1000; : ${marker}"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sh", ["/bin/sh", "-c", "sleep 1000; : ${marker}"])
    os._exit(0)
time.sleep(1000)`],
    ["shell", (marker: string) => `for i in 1 2 3; do setsid sh -c 'sleep 1000; : ${marker}' & done; nohup sh -c 'sleep 1000; : ${marker}' >/dev/null 2>&1 & sleep 1000`],
  ] as const)("stops a %s program at its timeout with every process it started, detached or not", async (language, program) => {
    const marker = `tt-timeout-${language}-${process.pid}-${Date.now()}`;
    const { result, peak } = await watch(marker, { language, source: program(marker), timeoutMs: 2_500 });
    expect(peak).toBeGreaterThanOrEqual(4); // the grandchildren really ran
    expect(result.timedOut).toBe(true);
    expect(result.limit).toBe("wall_time");
    expect(result.error?.code).toBe("SANDBOX_TIMEOUT");
    expect(result.exitCode).toBeNull();
    expect(result.durationMs).toBeGreaterThanOrEqual(2_400);
    expect(result.durationMs).toBeLessThan(20_000);
    // Nothing is left behind, not even the re-parented daemons (killed processes take a moment to leave /proc).
    await expect.poll(() => processesWithMarker(marker), { timeout: 5_000 }).toEqual([]);
  });

  it.each([
    ["javascript", "const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));"],
    ["javascript", "const hoard = []; for (;;) hoard.push(Buffer.alloc(16 * 1024 * 1024, 1));"],
    ["python", "hoard = []\nwhile True:\n    hoard.append(bytearray(16 * 1024 * 1024))"],
  ] as const)("stops a %s program that allocates until it is killed, and reports it", async (language, source) => {
    const result = await run({ language, source, limits: { memoryMb: 128 } });
    expect(result.limit, result.stderr).toBe("memory");
    expect(result.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(result.error?.message).toContain("128 MiB");
    expect(result.exitCode).not.toBe(0);
    expect(result.timedOut).toBe(false);
  });

  it("refuses at once a JavaScript program whose memory limit node cannot start under, as a memory failure", async () => {
    const minimum = nodeMinimumMemoryMb();
    // Node could not reserve its threads' stacks under RLIMIT_DATA and waited for one forever: until the timeout.
    const refused = await run({ language: "javascript", source: "console.log('ran')", limits: { memoryMb: 32 }, timeoutMs: 20_000 });
    expect(refused.timedOut).toBe(false);
    expect(refused.durationMs).toBeLessThan(5_000);
    expect(refused.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(refused.limit).toBe("memory");
    expect(refused.error?.message).toContain(`at least ${minimum} MiB and this run has 32 MiB`);
    expect(refused.stdout).toBe("");
    // At the minimum node starts, loads the program through its thread pool, and runs it; Python and the shell start at 32.
    const atMinimum = await run({ language: "javascript", source: "import fs from 'node:fs'; await fs.promises.readFile('/etc/passwd'); console.log('ran')", limits: { memoryMb: minimum }, timeoutMs: 20_000 });
    expect(atMinimum.error, atMinimum.stderr).toBeUndefined();
    expect(atMinimum.stdout).toBe("ran\n");
    for (const [language, source] of [["python", "print('ran')"], ["shell", "echo ran"]] as const) {
      expect((await run({ language, source, limits: { memoryMb: 32 }, timeoutMs: 20_000 })).stdout).toBe("ran\n");
    }
  });

  it("stops a fork bomb at the process limit, keeps the host responsive, and leaves nothing behind", async () => {
    const marker = `tt-forkbomb-${process.pid}-${Date.now()}`;
    // Every copy forks two more and lingers, so the sandbox sits at its limit until the timeout. The main
    // shell starts its own sleep first and waits with a builtin, so the bomb cannot make it exit early.
    const bomb = `: ${marker}; sleep 30 & main=$!; bomb() { bomb & bomb & sleep 30; }; bomb & wait $main`;
    let hostSpawns = 0;
    let done = false;
    const probe = (async () => {
      while (!done) {
        if (spawnSync("/bin/true").status === 0) hostSpawns++;
        await sleep(100); // the probe's cadence: the host is tried again and again while the bomb runs
      }
    })();
    const { result, peak } = await watch(marker, { language: "shell", source: bomb, timeoutMs: 6_000, limits: { maxProcesses: 32 } }).finally(() => (done = true));
    await probe;
    expect(peak, JSON.stringify(result)).toBeGreaterThan(5); // the bomb did fork...
    expect(peak).toBeLessThanOrEqual(32); // ...but never past the limit
    expect(hostSpawns).toBeGreaterThan(0);
    expect(result.timedOut).toBe(true);
    expect(result.stderr).toContain("Cannot fork");
    await expect.poll(() => processesWithMarker(marker), { timeout: 5_000 }).toEqual([]);
  });

  it("stops a Python fork loop at the process limit and reports it", async () => {
    const source = "import os, time\nchildren = 0\nwhile True:\n    pid = os.fork()\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    children += 1";
    const result = await run({ language: "python", source, limits: { maxProcesses: 16 }, timeoutMs: 20_000 });
    expect(result.limit, result.stderr).toBe("processes");
    expect(result.stderr).toMatch(/BlockingIOError|Resource temporarily unavailable/);
  });

  it("stops a program that burns more CPU seconds than allowed", async () => {
    const result = await run({ language: "javascript", source: "for (;;) {}", limits: { cpuSeconds: 1 }, timeoutMs: 60_000 });
    expect(result.limit).toBe("cpu");
    expect(result.signal).toBe("SIGXCPU");
    expect(result.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(result.timedOut).toBe(false);
  });

  it.each([
    ["javascript", `import fs from "node:fs"; fs.writeFileSync("big.bin", Buffer.alloc(3 * 1024 * 1024));`],
    ["python", `open("big.bin", "wb").write(bytes(3 * 1024 * 1024))`],
  ] as const)("stops a %s program that writes a file over the size limit", async (language, source) => {
    const result = await run({ language, source, limits: { maxFileMb: 1 } });
    expect(result.limit, result.stderr).toBe("file_size");
    expect(fs.statSync(path.join(workspace, "big.bin")).size).toBeLessThanOrEqual(1024 * 1024);
    fs.rmSync(path.join(workspace, "big.bin"));
  });

  it("limits the private /tmp", async () => {
    const result = await run({ language: "shell", source: "head -c 8000000 /dev/zero > /tmp/fill; echo status=$?; du -k /tmp/fill", limits: { tmpMb: 2 } });
    expect(result.stderr).toMatch(/No space left on device/);
    expect(Number(/(\d+)\s+\/tmp\/fill/.exec(result.stdout)?.[1])).toBeLessThanOrEqual(2048);
  });

  it("truncates a 100 MB flood with a marker, with bounded host memory, and stops it past the hard cap", async () => {
    const flood = `const line = "x".repeat(1 << 20); for (let i = 0; i < 100; i++) process.stdout.write(line);`;
    const before = process.memoryUsage().rss;
    const stopped = await run({ language: "javascript", source: flood });
    expect(stopped.stdoutTruncated).toBe(true);
    expect(stopped.limit).toBe("output");
    expect(stopped.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
    expect(stopped.stdout).toMatch(/\n\[\.\.\. truncated [\d,]+ bytes; output limit reached, program stopped \.\.\.\]$/);
    expect(stopped.stdout.length).toBeLessThan(fixture.config.code_execution.max_stdout_bytes + 200);
    // With a hard cap above the flood, all 100 MB are drained (counted, not kept) and the run completes.
    const drained = await run({ language: "javascript", source: flood, limits: { killAfterOutputBytes: 200 * 1024 * 1024, maxStdoutBytes: 1000 } });
    expect(drained.exitCode).toBe(0);
    expect(drained.error).toBeUndefined();
    expect(drained.stdout).toBe(`${"x".repeat(1000)}\n[... truncated 104,856,600 bytes ...]`);
    expect(drained.durationMs).toBeLessThan(30_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(80 * 1024 * 1024);
  });

  it("caps stderr separately, and from Python and the shell too", async () => {
    const python = await run({ language: "python", source: "import sys\nfor _ in range(2000): sys.stderr.write('e' * 100)", limits: { maxStderrBytes: 500 } });
    expect(python.stderrTruncated).toBe(true);
    expect(python.stderr).toBe(`${"e".repeat(500)}\n[... truncated 199,500 bytes ...]`);
    const shell = await run({ language: "shell", source: "yes | head -c 300000", limits: { maxStdoutBytes: 10 } });
    expect(shell.stdout).toBe("y\ny\ny\ny\ny\n\n[... truncated 299,990 bytes ...]");
  });
});
