import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExtensionsStore } from "./extensions-store.js";
import { bundleFixtures, FixtureProcess } from "./fixtures/fixture-process.js";

// Real processes on one real file: two writers racing, a reader polling, and a writer killed mid-write.
let dir: string;
let cleanup: () => void;
let file: string;
const running: FixtureProcess[] = [];
let bundles: Record<string, string>;
const bundleDir = makeTempDir("tt-store-bundles-");
beforeAll(async () => {
  bundles = await bundleFixtures(bundleDir.dir, ["crash-writer.ts", "concurrent-writer.ts", "poll-reader.ts"]);
});
afterAll(() => bundleDir.cleanup());
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-store-proc-"));
  file = path.join(dir, "extensions_config.json");
  fs.writeFileSync(file, `${JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {}, custom: { keep: true } }, null, 2)}\n`);
});
afterEach(async () => {
  for (const process of running.splice(0)) {
    process.kill();
    await process.closed;
  }
  cleanup();
});

function start(script: string, ...args: string[]): FixtureProcess {
  const bundle = bundles[script];
  if (!bundle) throw new Error(`no bundle for ${script}`);
  const fixture = new FixtureProcess(bundle, args);
  running.push(fixture);
  return fixture;
}

describe("extensions store across processes", () => {
  it("loses none of 200 concurrent updates from two processes, and a polling reader never sees invalid JSON", async () => {
    const reader = start("poll-reader.ts", file);
    const writers = [start("concurrent-writer.ts", file, "a", "100"), start("concurrent-writer.ts", file, "b", "100")];
    await Promise.all([reader, ...writers].map((p) => p.waitForLine((line) => line === "ready")));
    for (const writer of writers) writer.send("go");
    const results = await Promise.all(writers.map(async (w) => JSON.parse(await w.waitForLine((line) => line.startsWith("{"), 120_000)) as { done: number; failed: string[] }));
    reader.send("stop");
    const polled = JSON.parse(await reader.waitForLine((line) => line.startsWith("{"))) as { reads: number; invalid: number; firstProblem?: string };

    expect(results.map((r) => r.failed)).toEqual([[], []]);
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as { mcpServers: Record<string, { env: Record<string, string> }>; revision: number; custom: unknown };
    const expected = [...Array.from({ length: 100 }, (_, i) => `a-${i}`), ...Array.from({ length: 100 }, (_, i) => `b-${i}`)].sort();
    expect(Object.keys(written.mcpServers).sort()).toEqual(expected);
    expect(written.revision).toBe(200);
    expect(written.custom).toEqual({ keep: true });
    expect(written.mcpServers["a-7"]?.env.TOKEN).toBe("${TOKEN}");
    expect(polled.firstProblem).toBeUndefined();
    expect(polled.invalid).toBe(0);
    expect(polled.reads).toBeGreaterThan(50);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  }, 180_000);

  it("always leaves a valid file equal to some prefix of the updates when a writer is killed -9 mid-write, 50 times", async () => {
    const kills = 50;
    let applied = 0; // updates in the file after the last kill
    let killedMidUpdate = 0;
    let killedHoldingLock = 0;
    const recoveries: number[] = [];
    let spare = start("crash-writer.ts", file);
    for (let round = 0; round < kills; round++) {
      const writer = spare;
      spare = start("crash-writer.ts", file); // warms up while this round runs
      await writer.waitForLine((line) => line === "ready");
      const started = Date.now();
      writer.send(`go ${applied + 1}`);
      await writer.waitForLine((line) => line.startsWith("after "), 30_000);
      recoveries.push(Date.now() - started);
      // Not a wait for anything: the kill lands at a random moment of the writer's updates (the input under test).
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
      writer.kill("SIGKILL");
      await writer.closed;
      if (fs.existsSync(`${file}.lock`)) killedHoldingLock++;

      const numbers = (prefix: string): number[] => writer.lines.filter((l) => l.startsWith(prefix)).map((l) => Number(l.slice(prefix.length)));
      const lastBefore = Math.max(...numbers("before "));
      const lastAfter = Math.max(...numbers("after "));
      if (lastBefore > lastAfter) killedMidUpdate++;

      const text = fs.readFileSync(file, "utf8");
      const document = JSON.parse(text) as { skills: Record<string, unknown>; revision: number; custom: unknown };
      const keys = Object.keys(document.skills);
      const count = keys.length;
      expect(keys).toEqual(Array.from({ length: count }, (_, i) => `s${i + 1}`));
      expect(count).toBeGreaterThanOrEqual(lastAfter);
      expect(count).toBeLessThanOrEqual(lastBefore);
      expect(document.revision).toBe(count);
      expect(document.custom).toEqual({ keep: true });
      applied = count;
    }
    spare.kill();
    await spare.closed;
    // What the killed writers left beside the file (temp files, lock folders) goes at the next start.
    const swept = await new ExtensionsStore(file).sweep();
    expect(fs.readdirSync(dir).filter((name) => !name.includes(".lock.stale-"))).toEqual(["extensions_config.json"]);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ revision: applied });
    // Kills land at random moments; with a writer that spends nearly all its time inside updates, many are mid-write.
    expect(killedMidUpdate).toBeGreaterThan(0);
    expect(killedHoldingLock).toBeGreaterThan(0);
    // The next writer's first update never waited out a stale lock (10 s): the dead holder's pid was checked.
    expect(Math.max(...recoveries)).toBeLessThan(5000);
    console.log(`crash test: ${applied} updates, ${killedMidUpdate}/${kills} kills mid-update, ${killedHoldingLock} holding the lock, slowest first update after a kill ${Math.max(...recoveries)} ms, ${swept.removed.length} leftovers swept`);
  }, 240_000);
});
