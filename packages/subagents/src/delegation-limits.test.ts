import { describe, expect, it } from "vitest";
import { DelegationLimits } from "./delegation-limits.js";

describe("DelegationLimits", () => {
  it("runs at most maxConcurrent at once; the others get a slot in call order as slots free", async () => {
    const limits = new DelegationLimits({ maxConcurrent: 2, maxPerRun: 10 });
    const order: string[] = [];
    const first = await limits.acquire();
    const second = await limits.acquire();
    const third = limits.acquire().then((release) => (order.push("third"), release));
    const fourth = limits.acquire().then((release) => (order.push("fourth"), release));
    expect([limits.running, limits.waiting]).toEqual([2, 2]);
    first();
    first(); // a second call frees nothing more
    const releaseThird = await third;
    expect(order).toEqual(["third"]);
    expect([limits.running, limits.waiting]).toEqual([2, 1]);
    second();
    (await fourth)();
    releaseThird();
    expect(order).toEqual(["third", "fourth"]);
    expect([limits.running, limits.waiting]).toEqual([0, 0]);
  });

  it("a waiter whose signal aborts leaves the queue without a slot", async () => {
    const limits = new DelegationLimits({ maxConcurrent: 1, maxPerRun: 10 });
    const held = await limits.acquire();
    const controller = new AbortController();
    const waiting = limits.acquire(controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    expect(limits.waiting).toBe(0);
    held();
    expect(limits.running).toBe(0);
    await expect(limits.acquire(controller.signal)).rejects.toThrow("cancelled");
  });

  it("admits maxPerRun delegations in all, shared with sub-agents' own limits", () => {
    const limits = new DelegationLimits({ maxConcurrent: 1, maxPerRun: 3 });
    const child = limits.forSubagent();
    expect(limits.admit()).toEqual({ ok: true, index: 1 });
    expect(child.admit()).toEqual({ ok: true, index: 2 });
    expect(limits.admit()).toEqual({ ok: true, index: 3 });
    const refused = child.admit();
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toMatch(/max_per_run \(3\)/);
  });

  it("a sub-agent's slots are its own: a parent holding the last slot does not block its child", async () => {
    const limits = new DelegationLimits({ maxConcurrent: 1, maxPerRun: 5 });
    const parent = await limits.acquire();
    const child = await limits.forSubagent().acquire();
    child();
    parent();
  });
});
