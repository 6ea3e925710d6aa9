import { describe, expect, it } from "vitest";
import { AutoMemoryScheduler, type AutoMemoryBatch } from "./auto-memory-scheduler.js";

/** A pass the test finishes by hand, and the passes that started. */
function recorder() {
  const started: { threadId: string; batch: AutoMemoryBatch; finish: () => void; signal: AbortSignal }[] = [];
  const waiting: (() => void)[] = [];
  const pass = (threadId: string, batch: AutoMemoryBatch, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      started.push({ threadId, batch, finish: resolve, signal });
      signal.addEventListener("abort", () => resolve());
      for (const wake of waiting.splice(0)) wake();
    });
  const nextStart = () => new Promise<void>((resolve) => waiting.push(resolve));
  return { started, pass, nextStart };
}

describe("AutoMemoryScheduler", () => {
  it("runs one pass per quiet thread, counting the runs that ended before it, and never waits in runEnded", async () => {
    const { started, pass, nextStart } = recorder();
    const scheduler = new AutoMemoryScheduler({ debounceMs: 20, pass, onError: () => {} });
    const begun = nextStart();
    // runEnded returns nothing to wait on and starts no pass in the caller's turn.
    const returned = [
      scheduler.runEnded("t1", { ownerId: "u1", memoryOff: false }),
      scheduler.runEnded("t1", { ownerId: "u1", memoryOff: false }),
      scheduler.runEnded("t1", { ownerId: "u1", memoryOff: true }),
    ];
    expect(returned).toEqual([undefined, undefined, undefined]);
    expect(started).toHaveLength(0);
    expect(scheduler.pending("t1")).toBe(true);
    await begun;
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ threadId: "t1", batch: { ownerId: "u1", runs: 3, memoryOff: true } });
    // A run that ends during the pass waits for its own, after the first.
    scheduler.runEnded("t1", { ownerId: "u1", memoryOff: false });
    const second = nextStart();
    started[0]?.finish();
    await second;
    expect(started[1]?.batch).toEqual({ ownerId: "u1", runs: 1, memoryOff: false });
    started[1]?.finish();
    await scheduler.idle();
    expect(scheduler.pending("t1")).toBe(false);
  });

  it("keeps threads apart, reports a failed pass and goes on", async () => {
    const errors: string[] = [];
    const seen: string[] = [];
    const scheduler = new AutoMemoryScheduler({
      debounceMs: 0,
      pass: async (threadId) => {
        seen.push(threadId);
        if (threadId === "bad") throw new Error("model down");
      },
      onError: (error, threadId) => errors.push(`${threadId}: ${(error as Error).message}`),
    });
    scheduler.runEnded("bad", { ownerId: "u1", memoryOff: false });
    scheduler.runEnded("good", { ownerId: "u2", memoryOff: false });
    await scheduler.idle();
    expect(seen.sort()).toEqual(["bad", "good"]);
    expect(errors).toEqual(["bad: model down"]);
  });

  it("close() drops what waits and aborts what runs; later run ends are ignored", async () => {
    const { started, pass, nextStart } = recorder();
    const scheduler = new AutoMemoryScheduler({ debounceMs: 0, pass, onError: () => {} });
    const begun = nextStart();
    scheduler.runEnded("running", { ownerId: "u1", memoryOff: false });
    await begun;
    const slow = new AutoMemoryScheduler({ debounceMs: 60_000, pass, onError: () => {} });
    slow.runEnded("waiting", { ownerId: "u1", memoryOff: false });
    await slow.close();
    await scheduler.close();
    expect(started.map((entry) => entry.threadId)).toEqual(["running"]);
    expect(started[0]?.signal.aborted).toBe(true);
    scheduler.runEnded("late", { ownerId: "u1", memoryOff: false });
    expect(scheduler.pending("late")).toBe(false);
    await scheduler.idle();
  });
});
