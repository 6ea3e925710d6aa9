/**
 * Turns for the CPU-bound stretches of runs, one per event-loop iteration.
 *
 * A run's steps are mostly promise chains without I/O (a synchronous SQLite checkpointer, a fast or
 * scripted model), so dozens of concurrent runs fill each turn of the event loop with their
 * work, and a request that needs a millisecond (GET /healthz, a new run) waits behind all of it.
 * A run awaits `nextTurn()` before each such stretch (a graph node, a checkpoint read or write):
 * waiting runs resume one per iteration of the event loop, in arrival order, so between any two
 * stretches the loop polls for I/O and answers what came in. Throughput stays the same (the same
 * work, in smaller pieces); a run waiting on a model's network answer takes no turn meanwhile.
 */
const waiting: (() => void)[] = [];
let head = 0;
let pumping = false;

export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

/** Resumes one run; its continuation runs once this callback returns (microtasks), then the loop polls again. */
function pump(): void {
  const resume = waiting[head];
  waiting[head++] = noop;
  // Compact now and then instead of shift() per turn (O(n) on a long queue).
  if (head > 1024 && head * 2 > waiting.length) {
    waiting.splice(0, head);
    head = 0;
  }
  resume?.();
  if (head < waiting.length) setImmediate(pump);
  else {
    waiting.length = 0;
    head = 0;
    pumping = false;
  }
}

function noop(): void {}
