import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isThinktankError } from "../errors/thinktank-error.js";
import { FileLock } from "./file-lock.js";

let dir: string;
let cleanup: () => void;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-lock-"));
  file = path.join(dir, "data.json");
});
afterEach(() => cleanup());

/** Puts a lock in place as if another process held it. */
function plantLock(owner: { pid: number; hostname: string; token?: string }, ageMs = 0): void {
  const lock = `${file}.lock`;
  fs.mkdirSync(lock);
  fs.writeFileSync(path.join(lock, "owner.json"), JSON.stringify({ token: owner.token ?? "planted", acquiredAt: new Date().toISOString(), ...owner }));
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(lock, when, when);
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
    await held.assertHeld();
    await held.release();
    await held.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("makes a second holder wait for the first", async () => {
    const first = await new FileLock(file).acquire();
    const events: string[] = [];
    const second = new FileLock(file).acquire().then((held) => {
      events.push("second acquired");
      return held;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    events.push("first releases");
    await first.release();
    await (await second).release();
    expect(events).toEqual(["first releases", "second acquired"]);
  });

  it("takes over at once from a crashed holder on this host (pid gone)", async () => {
    plantLock({ pid: await deadPid(), hostname: "here" });
    const started = Date.now();
    const held = await new FileLock(file, { hostname: "here", staleMs: 60_000 }).acquire();
    expect(Date.now() - started).toBeLessThan(1000);
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

  it("takes over from a holder on another host once its lock went stale", async () => {
    plantLock({ pid: 1, hostname: "elsewhere" }, 20_000);
    const held = await new FileLock(file, { hostname: "here", staleMs: 10_000 }).acquire();
    await held.assertHeld();
    await held.release();
  });

  it("takes over a lock folder without an owner once it is stale", async () => {
    fs.mkdirSync(`${file}.lock`);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, old, old);
    await (await new FileLock(file, { staleMs: 5000 }).acquire()).release();
  });

  it("keeps its lock fresh while held, so a long holder is not taken for stale", async () => {
    const held = await new FileLock(file, { staleMs: 400, refreshMs: 50, hostname: "a" }).acquire();
    await new Promise((resolve) => setTimeout(resolve, 900));
    const error = await new FileLock(file, { staleMs: 400, hostname: "b", timeoutMs: 200 }).acquire().catch((e: unknown) => e);
    expect(isThinktankError(error) && error.code).toBe("STORE_BUSY");
    await held.assertHeld();
    await held.release();
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
        await new Promise((resolve) => setTimeout(resolve, 20));
        holders--;
        await held.release();
      }),
    );
    expect(most).toBe(1);
    expect(fs.readdirSync(dir).filter((name) => !name.includes(".stale-"))).toEqual([]);
  });
});
