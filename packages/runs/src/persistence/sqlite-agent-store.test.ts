import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "./agent-store.js";

// Several agent processes opening one fresh SQLite threads database at once (two agent servers
// started together on one folder, as tests and users do): each opens it and can write.
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/open-sqlite-store.ts");
let temp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => temp?.cleanup());

/** Starts an opener; `ready` resolves once it waits for the word, `outcome` with what it said after. */
function opener(file: string): { ready: Promise<void>; go: () => void; outcome: Promise<string> } {
  const child = spawn(process.execPath, ["--conditions=development", "--import", import.meta.resolve("tsx"), fixture, file], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (output.startsWith("ready\n")) markReady();
    // Opened (kept open while the others open) or failed: either way it may close now.
    if (/^ready\n(opened|failed)/.test(output)) child.stdin.end("close\n");
  });
  const outcome = new Promise<string>((resolve) => child.on("close", () => resolve(output.replace(/^ready\n/, "").trim())));
  return { ready, go: () => child.stdin.write("go\n"), outcome };
}

describe("the SQLite threads database", () => {
  it("opens in six processes at once on a fresh file, each able to write", { timeout: 120_000 }, async () => {
    temp = makeTempDir("tt-sqlite-open-");
    for (let round = 0; round < 5; round++) {
      const file = path.join(temp.dir, `round-${round}`, "threads.sqlite");
      const openers = Array.from({ length: 6 }, () => opener(file));
      await Promise.all(openers.map((each) => each.ready));
      for (const each of openers) each.go();
      const outcomes = await Promise.all(openers.map((each) => each.outcome));
      expect(outcomes).toEqual(Array.from({ length: 6 }, () => "opened"));
    }
  });

  it("is private to the service: the file, its -wal and -shm are 0600 (an old 0644 one too), its folder made 0700", async () => {
    temp = makeTempDir("tt-sqlite-modes-");
    const fresh = path.join(temp.dir, "data", "threads.sqlite");
    const old = path.join(temp.dir, "old.sqlite");
    fs.writeFileSync(old, "", { mode: 0o644 });
    for (const file of [fresh, old]) {
      const store = await openSqliteStore(file);
      const now = new Date().toISOString();
      await store.metadata.createThread({ thread_id: crypto.randomUUID(), created_at: now, updated_at: now, state_updated_at: now, metadata: {}, status: "idle", values: null, interrupts: {}, error: null });
      for (const each of [file, `${file}-wal`, `${file}-shm`]) expect([each, (fs.statSync(each).mode & 0o777).toString(8)]).toEqual([each, "600"]);
      await store.close();
    }
    expect(fs.statSync(path.dirname(fresh)).mode & 0o777).toBe(0o700);
  });
});
