import { describe, expect, it } from "vitest";
import { KeptRunEvents } from "./kept-run-events.js";

const hour = 3_600_000;

/** A run with one event of `size` bytes of data, finished. */
function finishRun(kept: KeptRunEvents, runId: string, size = 10): void {
  kept.open(runId).log.push("values", JSON.stringify("x".repeat(size)));
  kept.finish(runId);
}

describe("KeptRunEvents", () => {
  it("drops the oldest finished runs past max_runs, never a running one", () => {
    const kept = new KeptRunEvents({ retentionMs: hour, maxRuns: 2, maxBytes: 1e9 });
    kept.open("running").log.push("metadata", "{}");
    for (const runId of ["a", "b", "c"]) finishRun(kept, runId);
    expect(["running", "a", "b", "c"].map((runId) => kept.get(runId) !== undefined)).toEqual([true, false, true, true]);
    expect(kept.size).toMatchObject({ runs: 3, finished: 2 });
    kept.clear();
  });

  it("drops the oldest finished runs past max_bytes, also while a running run grows", () => {
    const kept = new KeptRunEvents({ retentionMs: hour, maxRuns: 100, maxBytes: 1000 });
    for (const runId of ["a", "b", "c"]) finishRun(kept, runId, 200);
    expect(kept.size.finished).toBe(3);
    const running = kept.open("running").log;
    running.push("values", JSON.stringify("x".repeat(300)));
    // 3 × ~240 + ~340 > 1000: "a" goes first, then no more than needed.
    expect(["a", "b", "c", "running"].map((runId) => kept.get(runId) !== undefined)).toEqual([false, true, true, true]);
    expect(kept.size.bytes).toBeLessThanOrEqual(1000);
    // Running runs alone may exceed the bound: nothing left to drop, nothing dropped.
    running.push("values", JSON.stringify("x".repeat(2000)));
    expect(kept.get("running")).toBeDefined();
    expect(kept.size).toMatchObject({ runs: 1, finished: 0 });
    kept.clear();
  });

  it("drops finished runs after the retention time; the bytes counted go back to zero", async () => {
    let now = 0;
    const kept = new KeptRunEvents({ retentionMs: 50, maxRuns: 100, maxBytes: 1e9, now: () => now });
    finishRun(kept, "a");
    now = 40;
    finishRun(kept, "b");
    now = 60;
    finishRun(kept, "c");
    expect(kept.get("a")).toBeUndefined();
    expect(kept.get("b")).toBeDefined();
    now = 1000;
    // The timer set for the oldest run fires (real time) and drops what expired meanwhile.
    await expect.poll(() => kept.size, { timeout: 5_000 }).toEqual({ runs: 0, finished: 0, bytes: 0 });
  });

  it("a follower keeps reading a log that was dropped meanwhile", async () => {
    const kept = new KeptRunEvents({ retentionMs: hour, maxRuns: 0, maxBytes: 1e9 });
    const { log } = kept.open("a");
    log.push("metadata", "{}");
    const seen: string[] = [];
    const following = (async () => {
      for await (const event of log.follow()) seen.push(event.event);
    })();
    log.push("values", "{}");
    kept.finish("a");
    expect(kept.get("a")).toBeUndefined();
    await following;
    expect(seen).toEqual(["metadata", "values"]);
  });
});
