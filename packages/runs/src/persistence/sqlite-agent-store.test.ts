import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { openSqliteStore } from "./agent-store.js";

// Several agent processes opening one fresh SQLite threads database at once (two agent servers
// started together on one folder, as tests and users do): each opens it and can write.
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/open-sqlite-store.ts");
let temp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => temp?.cleanup());

/** An opener process: `say` sends it a line and resolves with its next answer line. */
function opener(): { ready: Promise<void>; say: (line: string) => Promise<string>; stop: () => void } {
  const child = spawn(process.execPath, ["--conditions=development", "--import", import.meta.resolve("tsx"), fixture], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting: ((line: string) => void)[] = [];
  let buffered = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      waiting.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const ready = next().then((line) => expect(line).toBe("ready"));
  return {
    ready,
    say: (line) => {
      const answer = next();
      child.stdin.write(`${line}\n`);
      return answer;
    },
    stop: () => child.stdin.end(),
  };
}

describe("the SQLite threads database", () => {
  it("opens in six processes at once on a fresh file, each able to write", { timeout: 120_000 }, async () => {
    temp = makeTempDir("tt-sqlite-open-");
    const openers = Array.from({ length: 6 }, () => opener());
    onTestFinished(() => openers.forEach((each) => each.stop()));
    await Promise.all(openers.map((each) => each.ready));
    // Each round a fresh file, opened by all six at the same moment and kept open until all have answered.
    for (let round = 0; round < 10; round++) {
      const file = path.join(temp.dir, `round-${round}`, "threads.sqlite");
      const outcomes = await Promise.all(openers.map((each) => each.say(`open ${file}`)));
      expect(outcomes).toEqual(Array.from({ length: 6 }, () => "opened"));
      expect(await Promise.all(openers.map((each) => each.say("close")))).toEqual(Array.from({ length: 6 }, () => "closed"));
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
      await store.metadata.createThread({ thread_id: crypto.randomUUID(), created_at: now, updated_at: now, state_updated_at: now, metadata: {}, status: "idle", values: null, interrupts: {}, error: null, owner_id: "admin" });
      for (const each of [file, `${file}-wal`, `${file}-shm`]) expect([each, (fs.statSync(each).mode & 0o777).toString(8)]).toEqual([each, "600"]);
      await store.close();
    }
    expect(fs.statSync(path.dirname(fresh)).mode & 0o777).toBe(0o700);
  });
});
