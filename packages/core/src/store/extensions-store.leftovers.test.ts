import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExtensionsStore } from "./extensions-store.js";
import { FileLock } from "./file-lock.js";

// What killed or frozen writers leave beside extensions_config.json, and how the store gets past it.
let dir: string;
let cleanup: () => void;
let file: string;
const original = `${JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }, null, 2)}\n`;
const children: ChildProcess[] = [];
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-store-left-"));
  file = path.join(dir, "extensions_config.json");
  fs.writeFileSync(file, original);
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGKILL");
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once("exit", resolve));
  }
  cleanup();
});

/** Runs `node -e source` and resolves with its pid once it runs; with `waitExit`, once it has exited (a dead pid). */
async function nodeProcess(source: string, waitExit = false): Promise<number> {
  const child = spawn(process.execPath, ["-e", source], { stdio: "ignore" });
  children.push(child);
  await new Promise((resolve) => child.once(waitExit ? "exit" : "spawn", resolve));
  return child.pid as number;
}

/** A lock folder (or leftover) beside the file, owned by `pid` on this host, with its time `ageMs` ago. */
function plant(name: string, pid: number, ageMs = 0): void {
  const folder = path.join(dir, name);
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, "owner.json"), JSON.stringify({ token: name, pid, hostname: os.hostname(), acquiredAt: new Date().toISOString() }));
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(folder, when, when);
}

describe("ExtensionsStore and leftover locks", () => {
  it("writes once a live owner's lock, dated an hour in the future, has not beaten for staleMs", async () => {
    plant("extensions_config.json.lock", await nodeProcess("setInterval(() => {}, 1 << 30)"), -3_600_000);
    const store = new ExtensionsStore(file, { lock: { staleMs: 300, timeoutMs: 5000 } });
    const { snapshot } = await store.update((draft) => {
      draft.skills.demo = { enabled: true };
    });
    expect(snapshot.revision).toBe(1);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ skills: { demo: { enabled: true } }, revision: 1 });
  });
});

describe("ExtensionsStore.sweep", () => {
  it("removes a killed writer's temp files and lock folders, and leaves lookalikes alone", async () => {
    const dead = await nodeProcess("", true);
    fs.writeFileSync(`${file}.1234567890`, '{"mcpServers": {'); // cut off mid-write
    fs.writeFileSync(`${file}.42`, original);
    plant("extensions_config.json.lock.tmp-killed", dead);
    plant("extensions_config.json.lock", dead); // died holding the lock
    for (const keep of ["extensions_config.json.bak", "extensions_config.json.99999999999", "extensions_config.json.12a"]) fs.writeFileSync(path.join(dir, keep), "mine");

    const result = await new ExtensionsStore(file).sweep();
    expect([...result.removed].sort()).toEqual(["extensions_config.json.1234567890", "extensions_config.json.42", "extensions_config.json.lock.tmp-killed"]);
    expect(result.kept).toEqual([]);
    const left = fs.readdirSync(dir).filter((name) => !name.includes(".lock.stale-")); // the broken lock's tombstone waits until it is inert
    expect(left.sort()).toEqual(["extensions_config.json", "extensions_config.json.12a", "extensions_config.json.99999999999", "extensions_config.json.bak"]);
    expect(fs.readFileSync(file, "utf8")).toBe(original);
  });

  it("keeps the temp file of a live writer that holds the lock, and still removes a dead waiter's folder", async () => {
    const writer = await new FileLock(file, { staleMs: 300, refreshMs: 50 }).acquire();
    fs.writeFileSync(`${file}.3141592653`, '{"mcpServers": {"half'); // the writer is mid-write
    plant("extensions_config.json.lock.tmp-killed", await nodeProcess("", true));

    const result = await new ExtensionsStore(file, { lock: { staleMs: 300 } }).sweep();
    expect(result).toEqual({ removed: ["extensions_config.json.lock.tmp-killed"], kept: ["extensions_config.json.3141592653"] });
    expect(fs.existsSync(`${file}.3141592653`)).toBe(true);
    await writer.assertHeld();
    await writer.release();
  });
});
