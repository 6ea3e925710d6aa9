// Memory per execution: where a cgroup is writable, every execution runs in a memory cgroup of its
// own (thinktank-<pid>/exec-<n>), so memory_mb bounds all its processes together; elsewhere memory
// holds per process, and the executor says which. What holds on this host is detected, never assumed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { needs, processesWithMarker, repositoryRoot } from "@thinktank/testing";
import type { TestOptions } from "vitest";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { detectMemoryCgroups, type MemoryDetection } from "../limits/memory-cgroups.js";
import type { SandboxExecutor, SandboxResult } from "../sandbox-types.js";
import { sandboxFixture, type SandboxFixture } from "../test-support/sandbox-fixture.js";
import { backendLine } from "./select-launcher.js";

/** Independent of the detection: root, with a cgroup v1 memory hierarchy mounted read-write (the CI machines), must get cgroups. */
function rootWithWritableV1Memory(): boolean {
  if (process.getuid?.() !== 0) return false;
  const mountinfo = fs.readFileSync("/proc/self/mountinfo", "utf8");
  return mountinfo.split("\n").some((line) => / - cgroup \S+ \S*\bmemory\b/.test(line) && /^(?:\S+ ){5}rw[, ]/.test(line));
}

/**
 * Four children, each holding 60 MiB (under the 128 MiB limit), all at once (240 MiB together): each
 * says when it holds its block, and all are released together. Prints how many got to hold theirs.
 */
const fourChildren = `import os
release_r, release_w = os.pipe()
kids = []
for _ in range(4):
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(release_w)
        os.close(ready_r)
        block = bytearray(60 * 1024 * 1024)
        os.write(ready_w, b"x")
        os.read(release_r, 1)
        os._exit(0)
    os.close(ready_w)
    kids.append((pid, ready_r))
held = sum(1 for _, ready_r in kids if os.read(ready_r, 1) == b"x")
os.close(release_w)
for pid, _ in kids:
    os.waitpid(pid, 0)
print(f"held {held} of 4")
raise SystemExit(0 if held == 4 else 1)`;

describe("memory per execution", () => {
  let detection: MemoryDetection;
  beforeAll(async () => {
    detection = await detectMemoryCgroups();
  });

  /** This process's execution cgroups (empty when memory holds per process). */
  const execCgroups = (): string[] => {
    if (detection.mode === "per-process") return [];
    try {
      return fs.readdirSync(detection.parentDir).filter((name) => name.startsWith("exec-"));
    } catch {
      return [];
    }
  };

  it("uses a cgroup wherever this host lets it write one, and reports what holds", async () => {
    if (rootWithWritableV1Memory()) expect(detection).toMatchObject({ mode: expect.stringMatching(/^cgroup-v[12]$/) });
    const fixtures = [sandboxFixture({ backend: "local" }), sandboxFixture({ backend: "local", executor: { memoryCgroups: false } }), sandboxFixture({ backend: "deno" })];
    onTestFinished(() => Promise.all(fixtures.map((fixture) => fixture.cleanup())).then(() => undefined));
    const [local, off, deno] = await Promise.all(fixtures.map((fixture) => fixture.executor.describeBackend()));
    if (detection.mode === "per-process") {
      expect(local?.memory).toEqual({ mode: "per-process", description: `per process (RLIMIT_DATA); no cgroup: ${detection.reason}` });
    } else {
      expect(local?.memory).toEqual({ mode: detection.mode, description: expect.stringMatching(/^per execution \(cgroup v[12]: all processes of a run together; RLIMIT_DATA per process inside\)$/) });
      // Deno is one process: its own caps fail cleanly, where a cgroup at memory_mb would kill its runtime first.
      expect(deno?.memory.description).toMatch(/cgroup v[12] is writable but not used for deno\)$/);
    }
    expect(off?.memory).toEqual({ mode: "per-process", description: "per process (RLIMIT_DATA); no cgroup: cgroups turned off (memoryCgroups: false)" });
    expect(deno?.memory.mode).toBe("per-process");
    expect(deno?.memory.description).toMatch(/^per process \(deno is one process: V8 heap cap, Pyodide's memory cap, RLIMIT_DATA/);
    expect(backendLine(local as NonNullable<typeof local>)).toMatch(/; isolates: NOTHING: .*; memory: per (execution|process) \(/);
  });

  describe.each<[string, "local" | "bubblewrap", () => TestOptions]>([
    ["local", "local", () => ({})],
    ["bubblewrap", "bubblewrap", () => needs("bubblewrap")],
  ])("on %s", (_name, backend, options) => {
    let bounded: SandboxFixture;
    let perProcess: SandboxFixture;
    beforeAll(() => {
      bounded = sandboxFixture({ backend });
      perProcess = sandboxFixture({ backend, executor: { memoryCgroups: false } });
    });
    afterAll(async () => {
      await bounded?.cleanup();
      await perProcess?.cleanup();
    });
    const run = (executor: SandboxExecutor, fixture: SandboxFixture, source: string, timeoutMs = 60_000): Promise<SandboxResult> =>
      executor.run({ language: "python", source, workspaceDir: fixture.workspace("memory"), limits: { memoryMb: 128 }, timeoutMs });

    it("bounds an execution's processes together: four children under memory_mb each, over it together", options(), async () => {
      // Per process (rlimits only), each child fits, so the four together do.
      const unbounded = await run(perProcess.executor, perProcess, fourChildren);
      expect(unbounded.error, unbounded.stderr).toBeUndefined();
      expect(unbounded.stdout).toBe("held 4 of 4\n");
      const result = await run(bounded.executor, bounded, fourChildren);
      if (detection.mode === "per-process") {
        // What holds on this host: per process only, as reported.
        expect(result.stdout).toBe("held 4 of 4\n");
        expect((await bounded.executor.describeBackend()).memory.mode).toBe("per-process");
        return;
      }
      // Reported like any memory failure (sandbox-limits.test.ts), naming the bound per execution.
      expect(result.limit, result.stderr).toBe("memory");
      expect(result.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
      expect(result.error?.message).toMatch(/^The program ran out of memory \(limit 128 MiB per execution, all its processes together\): the kernel killed (a process|\d of its processes)/);
      expect(result.stdout).toMatch(/^held [0-3] of 4\n$/);
      expect(result.timedOut).toBe(false);
      expect(execCgroups()).toEqual([]);
    });

    it("removes the execution's cgroup after the run, and after a timeout kill, with what it left running", options(), async () => {
      const marker = `tt-cgroup-${backend}-${process.pid}-${Date.now()}`;
      const workspace = bounded.workspace("cgroup-gone");
      const done = await bounded.executor.run({ language: "shell", source: "echo done", workspaceDir: workspace });
      expect(done.stdout).toBe("done\n");
      expect(execCgroups()).toEqual([]);

      // A daemon that leaves the program's process tree (double fork, new session), then the program hangs until its timeout.
      const started = path.join(workspace, "started");
      const source = `(setsid sh -c 'sleep 1000; : ${marker}' >/dev/null 2>&1 &); touch started; sleep 1000`;
      const running = bounded.executor.run({ language: "shell", source, workspaceDir: workspace, timeoutMs: 3_000 });
      await expect.poll(() => fs.existsSync(started) && processesWithMarker(marker).length > 0, { timeout: 20_000, message: "the program and its daemon" }).toBe(true);
      if (detection.mode !== "per-process") {
        const [cgroup, ...others] = execCgroups();
        expect(others).toEqual([]);
        const tasks = fs.readFileSync(path.join(detection.parentDir, cgroup as string, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
        // The daemon, reparented away from the program, is still in the execution's cgroup.
        expect(tasks).toEqual(expect.arrayContaining(processesWithMarker(marker)));
      }
      const result = await running;
      expect(result.error?.code).toBe("SANDBOX_TIMEOUT");
      expect(execCgroups()).toEqual([]);
      if (detection.mode !== "per-process" || backend === "bubblewrap") {
        // bubblewrap: the pid namespace dies; local: the cgroup is emptied before it is removed.
        expect(processesWithMarker(marker)).toEqual([]);
      } else {
        // Per process, the local backend cannot find a daemon that left its tree (see kill-process-tree.ts).
        for (const pid of processesWithMarker(marker)) process.kill(pid, "SIGKILL");
      }
      fs.rmSync(started);
    });
  });

  it("a new process removes the cgroup of a crashed one and kills what was left in it", async () => {
    if (detection.mode === "per-process") {
      expect(detection.reason).not.toBe("");
      return;
    }
    const fixture = sandboxFixture({ backend: "local" });
    onTestFinished(() => fixture.cleanup());
    const marker = `tt-cgroup-crash-${process.pid}-${Date.now()}`;
    const workspace = fixture.workspace("crash");
    const script = path.join(fixture.root, "cgroup-host.mts");
    fs.writeFileSync(
      script,
      `import { loadConfig } from ${JSON.stringify(path.join(repositoryRoot(), "packages/core/src/index.ts"))};
import { createSandboxExecutor } from ${JSON.stringify(path.join(repositoryRoot(), "packages/sandbox/src/index.ts"))};
const config = loadConfig({ cwd: ${JSON.stringify(fixture.root)}, env: {} });
const executor = createSandboxExecutor({ config: { ...config, sandbox: { ...config.sandbox, backend: "local", warm_pool_size: 0 } }, searchPath: process.env.PATH });
console.log(JSON.stringify((await executor.describeBackend()).memory));
if (process.argv[2] === "crash") void executor.run({ language: "shell", source: "sleep 1000; : ${marker}", workspaceDir: ${JSON.stringify(workspace)}, timeoutMs: 250_000 });
else await executor.close();
`,
    );
    const host = (mode: string): { child: ReturnType<typeof spawn>; output: () => string } => {
      const child = spawn(process.execPath, ["--conditions=development", "--import", "tsx", script, mode], { cwd: repositoryRoot(), env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "inherit"] });
      let output = "";
      child.stdout?.on("data", (chunk) => (output += chunk));
      return { child, output: () => output };
    };

    // A host process runs a program, then dies without cleaning up: its cgroup and the program stay.
    const crashed = host("crash");
    const exited = new Promise((resolve) => crashed.child.once("exit", resolve));
    await expect.poll(() => processesWithMarker(marker).length > 0, { timeout: 60_000, message: "the crashed host's program" }).toBe(true);
    const stale = path.join(detection.baseDir, `thinktank-${crashed.child.pid}`);
    expect(fs.readdirSync(stale).filter((name) => name.startsWith("exec-"))).toHaveLength(1);
    crashed.child.kill("SIGKILL");
    await exited;
    expect(processesWithMarker(marker)).not.toEqual([]);

    // The next host process sweeps it at start-up.
    const next = host("sweep");
    const code = await new Promise((resolve) => next.child.once("exit", resolve));
    expect(code).toBe(0);
    expect(JSON.parse(next.output().trim()) as unknown).toMatchObject({ mode: detection.mode });
    expect(fs.existsSync(stale)).toBe(false);
    expect(processesWithMarker(marker)).toEqual([]);
  }, 120_000);
});
