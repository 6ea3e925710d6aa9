// The warm pool: pre-started single-use workers keyed by what fixes them at start-up.
import fs from "node:fs";
import path from "node:path";
import { needs } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

/** Worker folders named on live host command lines (each worker's bubblewrap binds its own). */
function liveWorkers(runtimeDir: string): Set<string> {
  const found = new Set<string>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      for (const match of cmdline.matchAll(new RegExp(`${runtimeDir}/workers/([\\w-]+)`, "g"))) found.add(match[1] as string);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

describe("warm pool", needs("bubblewrap"), () => {
  let fixture: SandboxFixture;
  let runtimeDir: string;
  const make = (options: { warmPoolSize?: number; maxWarmKeys?: number } = {}): void => {
    fixture = sandboxFixture({ warmPoolSize: options.warmPoolSize ?? 2, executor: { maxWarmKeys: options.maxWarmKeys ?? 4 } });
    runtimeDir = fixture.runtimeDir;
  };
  afterEach(() => fixture.cleanup());

  it("runs each program in a fresh warm process: no state leaks between runs", async () => {
    make();
    const workspace = fixture.workspace("fresh");
    await fixture.executor.prewarm({ language: "javascript", workspaceDir: workspace });
    const source = `import fs from "node:fs";
      console.log(JSON.stringify({ seen: globalThis.marker ?? null, tmp: fs.existsSync("/tmp/left-behind"), env: process.env.ONLY_FIRST ?? null }));
      globalThis.marker = "set"; fs.writeFileSync("/tmp/left-behind", "x");`;
    const first = await fixture.executor.run({ language: "javascript", source, workspaceDir: workspace, env: { ONLY_FIRST: "1" } });
    const second = await fixture.executor.run({ language: "javascript", source, workspaceDir: workspace });
    expect(first.warm).toBe(true);
    expect(second.warm).toBe(true);
    const a = JSON.parse(first.stdout) as Record<string, unknown>;
    const b = JSON.parse(second.stdout) as Record<string, unknown>;
    expect(a).toMatchObject({ seen: null, tmp: false, env: "1" });
    expect(b).toMatchObject({ seen: null, tmp: false, env: null });
  });

  it("keeps Python and the shell warm too, with the request's environment", async () => {
    make({ warmPoolSize: 1 });
    const workspace = fixture.workspace("languages");
    for (const [language, source] of [["python", "import os; print(os.environ['GREETING'])"], ["shell", 'echo "$GREETING"']] as const) {
      await fixture.executor.prewarm({ language, workspaceDir: workspace });
      const result = await fixture.executor.run({ language, source, workspaceDir: workspace, env: { GREETING: `hello ${language}` } });
      expect(result.warm).toBe(true);
      expect(result.stdout).toBe(`hello ${language}\n`);
    }
  });

  it("never lends one thread's worker to another thread", async () => {
    make({ warmPoolSize: 1 });
    const first = fixture.workspace("thread-1");
    const second = fixture.workspace("thread-2");
    fs.writeFileSync(path.join(first, "whose.txt"), "thread-1");
    fs.writeFileSync(path.join(second, "whose.txt"), "thread-2");
    await fixture.executor.prewarm({ language: "shell", workspaceDir: first });
    const result = await fixture.executor.run({ language: "shell", source: "cat whose.txt", workspaceDir: second });
    expect(result.warm).toBe(false);
    expect(result.stdout).toBe("thread-2");
  });

  it("does not reuse a worker whose workspace was deleted and created again", async () => {
    make({ warmPoolSize: 1 });
    const workspace = fixture.workspace("recreated");
    fs.writeFileSync(path.join(workspace, "version.txt"), "old");
    await fixture.executor.prewarm({ language: "shell", workspaceDir: workspace });
    fs.rmSync(workspace, { recursive: true });
    fixture.workspace("recreated");
    fs.writeFileSync(path.join(workspace, "version.txt"), "new");
    const result = await fixture.executor.run({ language: "shell", source: "cat version.txt", workspaceDir: workspace });
    expect(result.warm).toBe(false);
    expect(result.stdout).toBe("new");
  });

  it("refills after each run, keeps at most maxWarmKeys keys, and stops every worker on close", async () => {
    make({ warmPoolSize: 2, maxWarmKeys: 1 });
    const first = fixture.workspace("keys-1");
    const second = fixture.workspace("keys-2");
    await fixture.executor.prewarm({ language: "shell", workspaceDir: first });
    const firstWorkers = liveWorkers(runtimeDir);
    expect(firstWorkers.size).toBe(2);
    await fixture.executor.run({ language: "shell", source: "true", workspaceDir: first });
    await fixture.executor.prewarm({ language: "shell", workspaceDir: first });
    // The used worker's sandbox init may take a moment to finish exiting after bubblewrap reported its status.
    await expect.poll(() => liveWorkers(runtimeDir).size, { timeout: 15_000 }).toBe(2);
    // A second key evicts the first (maxWarmKeys: 1).
    await fixture.executor.prewarm({ language: "shell", workspaceDir: second });
    await expect.poll(() => [...liveWorkers(runtimeDir)].filter((id) => firstWorkers.has(id)), { timeout: 15_000 }).toEqual([]);
    const secondWorkers = liveWorkers(runtimeDir);
    expect(secondWorkers.size).toBe(2);
    for (const id of firstWorkers) expect(secondWorkers.has(id)).toBe(false);
    await fixture.executor.close();
    expect(liveWorkers(runtimeDir).size).toBe(0);
  });

  it("leaves no process behind when workers are stopped in the middle of starting", async () => {
    // close() lands at a different point of the workers' start-up each round: before any is spawned,
    // once the first one's process exists, once all three exist (none of them ready yet, or some).
    for (const [round, seenBeforeClose] of [0, 1, 3].entries()) {
      make({ warmPoolSize: 3 });
      const workspace = fixture.workspace(`midstart-${round}`);
      const warming = fixture.executor.prewarm({ language: "shell", workspaceDir: workspace });
      if (seenBeforeClose > 0) await expect.poll(() => liveWorkers(runtimeDir).size, { timeout: 15_000, interval: 1 }).toBeGreaterThanOrEqual(seenBeforeClose);
      await fixture.executor.close();
      await warming;
      // close() resolves once every worker, even one caught half-started, is gone.
      expect(liveWorkers(runtimeDir)).toEqual(new Set());
      await fixture.cleanup();
    }
    make();
  });

  it("serves concurrent runs of one workspace, warm or not", async () => {
    make({ warmPoolSize: 2 });
    const workspace = fixture.workspace("concurrent");
    await fixture.executor.prewarm({ language: "javascript", workspaceDir: workspace });
    const results = await Promise.all([1, 2, 3, 4].map((n) => fixture.executor.run({ language: "javascript", source: `console.log(${n} * 10)`, workspaceDir: workspace })));
    expect(results.map((result) => result.stdout)).toEqual(["10\n", "20\n", "30\n", "40\n"]);
    expect(results.filter((result) => result.warm).length).toBeGreaterThanOrEqual(2);
  });
});
