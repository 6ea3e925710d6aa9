import { describe, expect, it } from "vitest";
import { nextTurn } from "./fair-turns.js";

/** Keeps the thread busy for `ms` (a CPU-bound stretch of a run). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** `workers` loops of `stretches` CPU-bound stretches of `ms` each, with or without a turn before each. */
async function load(workers: number, stretches: number, ms: number, turns: boolean): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let index = 0; index < stretches; index++) {
        if (turns) await nextTurn();
        else await Promise.resolve();
        busy(ms);
      }
    }),
  );
}

/** How often a 1 ms timer ran while `work` ran (how often the event loop got to other callbacks). */
async function timerRuns(work: () => Promise<void>): Promise<number> {
  let runs = 0;
  const timer = setInterval(() => runs++, 1);
  await work();
  clearInterval(timer);
  return runs;
}

describe("nextTurn", () => {
  it("lets the event loop run between the stretches of concurrent work", async () => {
    // 40 workers × 10 stretches of 1 ms: about 400 ms of work either way. Without turns it is one
    // stretch of the loop; with them the timer runs between stretches (a loaded machine may
    // deschedule the process now and then, so the test counts rather than times).
    expect(await timerRuns(() => load(40, 10, 1, false))).toBeLessThanOrEqual(1);
    expect(await timerRuns(() => load(40, 10, 1, true))).toBeGreaterThan(100);
  });

  it("resumes waiters in arrival order, one per turn of the loop", async () => {
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map(async (index) => {
      await nextTurn();
      order.push(index);
    }));
    expect(order).toEqual([0, 1, 2, 3]);
  });
});
