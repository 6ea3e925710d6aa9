import { describe, expect, it } from "vitest";
import { ToolScheduler } from "./tool-scheduler.js";

/** Tasks that record their start and end in `events` and end when the test says so, never on a timer. */
function gatedTasks() {
  const events: string[] = [];
  const gates = new Map<string, () => void>();
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      events.push(`start ${name}`);
      gates.set(name, () => {
        events.push(`end ${name}`);
        resolve(name);
      });
    });
  /** Ends task `name`, then lets the scheduler's promise callbacks run (they are all queued before the next macrotask). */
  const finish = async (name: string): Promise<void> => {
    const gate = gates.get(name);
    if (!gate) throw new Error(`task ${name} has not started`);
    gate();
    await settled();
  };
  return { events, task, finish };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("ToolScheduler", () => {
  it("runs parallel-capable calls together", async () => {
    const scheduler = new ToolScheduler();
    const { events, task, finish } = gatedTasks();
    const results = Promise.all(["a", "b", "c"].map((name) => scheduler.run(true, task(name))));
    await settled();
    expect(events).toEqual(["start a", "start b", "start c"]);
    expect(scheduler.active).toBe(3);
    for (const name of ["b", "c", "a"]) await finish(name);
    expect(await results).toEqual(["a", "b", "c"]);
  });

  it("runs the other calls one at a time, never beside another call, first come first served", async () => {
    const scheduler = new ToolScheduler();
    const { events, task, finish } = gatedTasks();
    const all = Promise.all([
      scheduler.run(true, task("p1")),
      scheduler.run(false, task("s1")),
      scheduler.run(true, task("p2")),
      scheduler.run(true, task("p3")),
      scheduler.run(false, task("s2")),
    ]);
    await settled();
    expect(events).toEqual(["start p1"]);
    await finish("p1");
    expect(events.slice(1)).toEqual(["end p1", "start s1"]);
    await finish("s1");
    expect(events.slice(3)).toEqual(["end s1", "start p2", "start p3"]);
    await finish("p2");
    // s2 waits for every running call, p3 too.
    expect(events.slice(6)).toEqual(["end p2"]);
    await finish("p3");
    expect(events.slice(7)).toEqual(["end p3", "start s2"]);
    await finish("s2");
    await all;
    expect(events).toEqual(["start p1", "end p1", "start s1", "end s1", "start p2", "start p3", "end p2", "end p3", "start s2", "end s2"]);
    expect(scheduler.active).toBe(0);
  });

  it("passes a failure through and keeps going", async () => {
    const scheduler = new ToolScheduler();
    const failing = scheduler.run(false, () => Promise.reject(new Error("boom")));
    const next = scheduler.run(false, async () => "after");
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("after");
  });
});
