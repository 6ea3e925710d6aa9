import { describe, expect, it } from "vitest";
import { admitUnder, InMemoryRunQueue } from "./run-queue.js";

/** A promise and its resolve, for work that ends when the test says so. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("admitUnder", () => {
  it("admits any run on an idle thread, and applies the strategy on a busy one", () => {
    expect(admitUnder("reject", "t", [])).toEqual({ before: [] });
    expect(() => admitUnder("reject", "t", ["a"])).toThrow(expect.objectContaining({ code: "THREAD_BUSY", message: expect.stringContaining("thread t is running a") }));
    expect(admitUnder("enqueue", "t", ["a"])).toEqual({ before: ["a"] });
    expect(admitUnder("interrupt", "t", ["a", "b"])).toEqual({ before: ["a", "b"], cancel: "interrupt" });
    expect(admitUnder("rollback", "t", ["a"])).toEqual({ before: ["a"], cancel: "rollback" });
  });
});

describe("InMemoryRunQueue", () => {
  it("runs a thread's work one at a time in admission order, other threads beside it", async () => {
    const queue = new InMemoryRunQueue();
    const order: string[] = [];
    const gates = { a: gate(), b: gate(), c: gate() };
    const work = (runId: keyof typeof gates, threadId: string) => async () => {
      order.push(`start ${runId}`);
      await gates[runId].promise;
      order.push(`end ${runId}`);
      queue.release(threadId, runId);
    };
    await queue.admit("t", "a", "reject");
    await expect(queue.admit("t", "x", "reject")).rejects.toMatchObject({ code: "THREAD_BUSY" });
    expect(await queue.admit("t", "b", "enqueue")).toEqual({ before: ["a"] });
    await queue.admit("u", "c", "reject");
    queue.schedule("t", work("a", "t"));
    queue.schedule("t", work("b", "t"));
    queue.schedule("u", work("c", "u"));
    expect(queue.inFlight("t")).toEqual(["a", "b"]);
    expect(queue.has("c")).toBe(true);
    gates.c.open();
    await queue.settled("u");
    expect(order).toEqual(["start a", "start c", "end c"]);
    gates.a.open();
    gates.b.open();
    await queue.settled("t");
    expect(order).toEqual(["start a", "start c", "end c", "end a", "start b", "end b"]);
    expect([queue.inFlight("t"), queue.has("a"), queue.has("c")]).toEqual([[], false, false]);
    await queue.settledAll();
  });

  it("forgets a withdrawn admission, so the thread is free again", async () => {
    const queue = new InMemoryRunQueue();
    await queue.admit("t", "a", "reject");
    queue.release("t", "a");
    expect(await queue.admit("t", "b", "reject")).toEqual({ before: [] });
  });
});
