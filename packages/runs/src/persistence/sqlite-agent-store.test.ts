import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";

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
});
