import { describe, expect, it } from "vitest";
import { CappedOutput } from "../output/capped-output.js";
import type { SandboxLimits } from "../sandbox-types.js";
import type { WorkerOutcome } from "../worker/sandbox-worker.js";
import { classifyOutcome } from "./classify-outcome.js";

const output = (text: string): CappedOutput => {
  const capped = new CappedOutput(1024 * 1024);
  capped.push(Buffer.from(text));
  return capped;
};

/** A worker that started, printed `stderr` and ended with `exitCode` or `signal`. */
const ended = (stderr: string, exitCode: number | null, signal: NodeJS.Signals | null = null): WorkerOutcome => ({
  exitCode,
  signal,
  started: true,
  timedOut: false,
  cancelled: false,
  outputLimitHit: false,
  stdout: output(""),
  stderr: output(stderr),
  durationMs: 10,
  oomKills: 0,
});

const limits = { memoryMb: 256, cpuSeconds: 30 } as SandboxLimits;

describe("classifyOutcome", () => {
  it.each([
    ["Node", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", 134, null],
    ["Deno (V8's fatal handler)", "<--- Last few GCs --->\n\n#\n# Fatal JavaScript out of memory: CALL_AND_RETRY_LAST\n#\n==== C stack trace", null, "SIGTRAP"],
    ["Deno (process)", "# Fatal process out of memory: Zone", 133, null],
    ["Python", "MemoryError", 1, null],
  ] as const)("reports a heap that ran out in %s as the memory limit", (_runtime, stderr, exitCode, signal) => {
    const result = classifyOutcome(ended(stderr, exitCode, signal as NodeJS.Signals | null), { backend: "deno", limits, timeoutMs: 30_000, warm: false });
    expect(result.limit).toBe("memory");
    expect(result.error?.code).toBe("SANDBOX_LIMIT_EXCEEDED");
  });

  it("does not call an ordinary failure a memory limit", () => {
    const result = classifyOutcome(ended("TypeError: x is not a function", 1), { backend: "deno", limits, timeoutMs: 30_000, warm: false });
    expect(result.limit).toBeUndefined();
  });
});
