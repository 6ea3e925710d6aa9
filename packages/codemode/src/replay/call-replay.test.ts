import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CallReplay, type RecordedCall } from "./call-replay.js";
import { ReplayStore } from "./replay-store.js";

const call = (tool: string, args: Record<string, unknown>, text = tool): RecordedCall => ({
  server: "s",
  tool,
  args,
  answer: { status: 200, body: { ok: true, isError: false, content: [{ type: "text", text }] } },
  inputRounds: [],
});

describe("CallReplay", () => {
  it("answers calls with the same server, tool and arguments from the record, in any order of arrival, then goes live", () => {
    const replay = new CallReplay([call("a", { n: 1 }, "first a"), call("b", {}), call("a", { n: 1 }, "second a")]);
    expect(replay.take("s", "b", {})?.tool).toBe("b");
    expect(replay.take("s", "a", { n: 1 })?.answer.body.content).toEqual([{ type: "text", text: "first a" }]);
    expect(replay.take("s", "a", { n: 1 })?.answer.body.content).toEqual([{ type: "text", text: "second a" }]);
    // Past the record: live, and not a divergence.
    expect(replay.take("s", "a", { n: 1 })).toBeUndefined();
    expect(replay.summary()).toEqual({ replayed: 3, unused: 0 });
  });

  it("the first call that matches nothing ends the replay: it and every later call are live, and the summary says where", () => {
    const replay = new CallReplay([call("a", { n: 1 }), call("b", {})]);
    expect(replay.take("s", "a", { n: 2 })).toBeUndefined();
    // b is in the record, but after a divergence nothing is replayed.
    expect(replay.take("s", "b", {})).toBeUndefined();
    expect(replay.summary()).toEqual({ replayed: 0, unused: 2, diverged: { call: "s.a", note: expect.stringContaining("s.a with other arguments") } });
  });

  it("keeps what it answered, replayed and live, for the next pause's record", () => {
    const replay = new CallReplay([call("a", {})]);
    replay.take("s", "a", {});
    replay.add(call("c", { x: true }));
    expect(replay.calls().map((recorded) => recorded.tool)).toEqual(["a", "c"]);
  });
});

describe("ReplayStore", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("saves a record under a key (0600 in a 0700 folder), loads it back, removes it; an unknown or unreadable key loads nothing", () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "replays-")), "replays");
    dirs.push(path.dirname(dir));
    const store = new ReplayStore({ dir });
    store.save("thread:call:program", [call("a", {})]);
    expect(store.load("thread:call:program")).toEqual([call("a", {})]);
    const [file] = fs.readdirSync(dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, file as string)).mode & 0o777).toBe(0o600);
    expect(file).not.toContain("thread");
    fs.writeFileSync(path.join(dir, file as string), "{ not json");
    expect(store.load("thread:call:program")).toEqual([]);
    store.remove("thread:call:program");
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(store.load("never saved")).toEqual([]);
  });

  it("removes records of pauses never resumed once they are older than maxAgeMs", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "replays-"));
    dirs.push(dir);
    let now = Date.now();
    const store = new ReplayStore({ dir, maxAgeMs: 60_000, now: () => now });
    store.save("old", [call("a", {})]);
    const old = path.join(dir, fs.readdirSync(dir)[0] as string);
    const past = new Date(now - 120_000);
    fs.utimesSync(old, past, past);
    now += 1;
    store.save("new", [call("b", {})]);
    expect(store.load("old")).toEqual([]);
    expect(store.load("new")).toHaveLength(1);
  });
});
