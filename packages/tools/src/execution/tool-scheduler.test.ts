import { describe, expect, it } from "vitest";
import { ToolScheduler } from "./tool-scheduler.js";

/** A task that records when it starts and ends (in a shared order list) and lasts `ms`. */
function task(events: string[], name: string, ms: number): () => Promise<string> {
  return async () => {
    events.push(`start ${name}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    events.push(`end ${name}`);
    return name;
  };
}

describe("ToolScheduler", () => {
  it("runs parallel-capable calls together", async () => {
    const scheduler = new ToolScheduler();
    const events: string[] = [];
    const results = await Promise.all(["a", "b", "c"].map((name) => scheduler.run(true, task(events, name, 30))));
    expect(results).toEqual(["a", "b", "c"]);
    expect(events.slice(0, 3)).toEqual(["start a", "start b", "start c"]);
  });

  it("runs the other calls one at a time, never beside another call, first come first served", async () => {
    const scheduler = new ToolScheduler();
    const events: string[] = [];
    await Promise.all([
      scheduler.run(true, task(events, "p1", 30)),
      scheduler.run(false, task(events, "s1", 10)),
      scheduler.run(true, task(events, "p2", 10)),
      scheduler.run(true, task(events, "p3", 10)),
      scheduler.run(false, task(events, "s2", 10)),
    ]);
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
