import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isThinktankError } from "../errors/thinktank-error.js";
import { FileLock } from "./file-lock.js";
import { processStartTime } from "./process-alive.js";

let dir: string;
let cleanup: () => void;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-lock-"));
  file = path.join(dir, "data.json");
});
const sleepers: ChildProcess[] = [];
afterEach(async () => {
  for (const sleeper of sleepers.splice(0)) {
    sleeper.kill("SIGKILL");
    if (sleeper.exitCode === null && sleeper.signalCode === null) await new Promise((resolve) => sleeper.once("exit", resolve));
  }
  cleanup();
});

/** Puts a lock (or, with `name`, a leftover beside it) in place as if another process held it; a negative age is in the future. */
function plantLock(owner: { pid: number; hostname: string; token?: string; startTime?: string }, ageMs = 0, name = `${path.basename(file)}.lock`): void {
  const lock = path.join(dir, name);
  fs.mkdirSync(lock);
  fs.writeFileSync(path.join(lock, "owner.json"), JSON.stringify({ token: owner.token ?? "planted", acquiredAt: new Date().toISOString(), ...owner }));
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(lock, when, when);
}

/** A live process of this host that never touches any lock. */
async function livePid(): Promise<number> {
  const sleeper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  sleepers.push(sleeper);
  await new Promise((resolve) => sleeper.once("spawn", resolve));
  return sleeper.pid as number;
}

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid as number;
}

describe("FileLock", () => {
  it("holds <file>.lock with its owner while held, and removes it on release", async () => {
    const held = await new FileLock(file, { hostname: "here" }).acquire();
    const owner = JSON.parse(fs.readFileSync(`${file}.lock/owner.json`, "utf8")) as Record<string, unknown>;
    expect(owner).toMatchObject({ pid: process.pid, hostname: "here" });
    if (process.platform === "linux") expect(owner.startTime).toBe(processStartTime(process.pid));
    await held.assertHeld();
    await held.release();
    await held.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("makes a second holder wait for the first", async () => {
    const first = await new FileLock(file).acquire();
    const events: string[] = [];
    // The second asks whether the holder (this process) is alive each time it finds the lock taken.
    let checks = 0;
    let foundTakenTwice: () => void = () => {};
    const waiting = new Promise<void>((resolve) => (foundTakenTwice = resolve));
    const isProcessAlive = (): boolean => {
      if (++checks === 2) foundTakenTwice();
      return true;
    };
    const second = new FileLock(file, { isProcessAlive }).acquire().then((held) => {
      events.push("second acquired");
      return held;
    });
    await Promise.race([waiting, second]); // a lock that let it in at once would show in `events`
    events.push("first releases");
    await first.release();
    await (await second).release();
    expect(events).toEqual(["first releases", "second acquired"]);
  });

  it("takes over at once from a crashed holder on this host (pid gone), whatever the lock's time", async () => {
    plantLock({ pid: await deadPid(), hostname: "here" }, -3_600_000);
    const started = Date.now();
    const held = await new FileLock(file, { hostname: "here", staleMs: 60_000 }).acquire();
    expect(Date.now() - started).toBeLessThan(10_000); // far below the 60 s staleness it would otherwise wait for
    await held.release();
  });

  it("waits for a live holder on another host, then gives up with STORE_BUSY", async () => {
    plantLock({ pid: 1, hostname: "elsewhere" });
    const error = await new FileLock(file, { hostname: "here", timeoutMs: 300 }).acquire().catch((e: unknown) => e);
    expect(isThinktankError(error) && error.code).toBe("STORE_BUSY");
    expect(String((error as Error).message)).toContain("held by pid 1 on elsewhere");
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(["data.json.lock"]);
  });

  it("does not take over from a live holder on this host", async () => {
    plantLock({ pid: process.pid, hostname: "here", token: "other" });
    const error = await new FileLock(file, { hostname: "here", timeoutMs: 200 }).acquire().catch((e: unknown) => e);
    expect(isThinktankError(error) && error.code).toBe("STORE_BUSY");
  });

  it("takes over from a holder on another host once its heartbeat stayed unchanged for staleMs", async () => {
    plantLock({ pid: 1, hostname: "elsewhere" }, 20_000);
    const started = performance.now();
    const held = await new FileLock(file, { hostname: "here", staleMs: 300 }).acquire();
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    await held.assertHeld();
    await held.release();
  });

  it("takes over a lock folder without an owner once its heartbeat stayed unchanged", async () => {
    fs.mkdirSync(`${file}.lock`);
    await (await new FileLock(file, { staleMs: 300 }).acquire()).release();
  });

  it("takes over from a live holder that does not beat, though the lock's time is an hour in the future", async () => {
    plantLock({ pid: await livePid(), hostname: "here", token: "frozen" }, -3_600_000);
    const held = await new FileLock(file, { hostname: "here", staleMs: 300, timeoutMs: 5000 }).acquire();
    await held.assertHeld();
    expect(fs.readdirSync(dir)).toContain("data.json.lock.stale-frozen");
    await held.release();
  });

  it("never takes over from a holder that beats, even when its clock is an hour behind (STORE_BUSY instead)", async () => {
    const skewed = () => Date.now() - 3_600_000;
    const held = await new FileLock(file, { hostname: "a", staleMs: 300, refreshMs: 50, now: skewed }).acquire();
    const error = await new FileLock(file, { hostname: "b", staleMs: 300, timeoutMs: 1500 }).acquire().catch((e: unknown) => e);
    expect(isThinktankError(error) && error.code).toBe("STORE_BUSY");
    await held.assertHeld();
    await held.release();
  });

  it.runIf(process.platform === "linux")("takes over at once when the holder's pid now belongs to another process (start time differs)", async () => {
    const pid = await livePid();
    plantLock({ pid, hostname: "here", startTime: processStartTime(pid) });
    const same = await new FileLock(file, { hostname: "here", staleMs: 60_000, timeoutMs: 200 }).acquire().catch((e: unknown) => e);
    expect(isThinktankError(same) && same.code).toBe("STORE_BUSY");

    fs.rmSync(`${file}.lock`, { recursive: true });
    plantLock({ pid, hostname: "here", startTime: "1" });
    const started = performance.now();
    const held = await new FileLock(file, { hostname: "here", staleMs: 60_000, timeoutMs: 5000 }).acquire();
    expect(performance.now() - started).toBeLessThan(1000);
    await held.release();
  });

  it("sweeps leftover folders of gone owners, keeps a live waiter's, and keeps tombstones until they are inert", async () => {
    const dead = await deadPid();
    const base = path.basename(file);
    plantLock({ pid: dead, hostname: "here" }, 0, `${base}.lock.tmp-killed`);
    plantLock({ pid: dead, hostname: "here" }, 0, `${base}.lock.released-killed`);
    plantLock({ pid: await livePid(), hostname: "here" }, 0, `${base}.lock.tmp-waiting`);
    plantLock({ pid: dead, hostname: "here" }, 0, `${base}.lock.stale-broken`);
    fs.writeFileSync(path.join(dir, `${base}.lock.notes`), "not ours");
    // Killed between creating its folder and writing owner.json: the name records the owner.
    const unwritten = `${base}.lock.tmp-${createHash("sha256").update("here").digest("hex").slice(0, 8)}.${dead}.${randomUUID()}`;
    fs.mkdirSync(path.join(dir, unwritten));
    fs.writeFileSync(path.join(dir, unwritten, "owner.json"), "");
    const removed = await new FileLock(file, { hostname: "here" }).sweepLeftovers();
    expect(removed.sort()).toEqual([`${base}.lock.released-killed`, `${base}.lock.tmp-killed`, unwritten].sort());
    expect(fs.readdirSync(dir).sort()).toEqual([`${base}.lock.notes`, `${base}.lock.stale-broken`, `${base}.lock.tmp-waiting`]);

    // Two minutes on, both are inert: nobody still racing to break a lock, no waiter still waiting.
    const later = () => Date.now() + 120_000;
    expect((await new FileLock(file, { hostname: "here", now: later }).sweepLeftovers()).sort()).toEqual([`${base}.lock.stale-broken`, `${base}.lock.tmp-waiting`]);
    expect(fs.readdirSync(dir)).toEqual([`${base}.lock.notes`]);
  });

  it("notices when its lock was taken over, and does not remove the new holder's lock on release", async () => {
    const held = await new FileLock(file, { hostname: "a" }).acquire();
    fs.rmSync(`${file}.lock`, { recursive: true });
    plantLock({ pid: 1, hostname: "b", token: "thief" });
    await expect(held.assertHeld()).rejects.toThrow(/taken over/);
    await held.release();
    expect(JSON.parse(fs.readFileSync(`${file}.lock/owner.json`, "utf8"))).toMatchObject({ token: "thief" });
  });

  it("lets only one of several processes that race to break the same dead lock hold it at a time", async () => {
    plantLock({ pid: await deadPid(), hostname: "here" });
    const locks = Array.from({ length: 6 }, () => new FileLock(file, { hostname: "here" }));
    let holders = 0;
    let most = 0;
    await Promise.all(
      locks.map(async (lock) => {
        const held = await lock.acquire();
        holders++;
        most = Math.max(most, holders);
        // Not a wait for anything: each holder keeps the lock a while, so that two holders at once would overlap.
        await new Promise((resolve) => setTimeout(resolve, 20));
        holders--;
        await held.release();
      }),
    );
    expect(most).toBe(1);
    expect(fs.readdirSync(dir).filter((name) => !name.includes(".stale-"))).toEqual([]);
  });
});
