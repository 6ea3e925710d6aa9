// Crons through @langchain/langgraph-sdk against a real agent server (SQLite, one process): a
// seconds-level schedule (the test config allows a 1 s interval) fires on time, each fire an ordinary
// run; thread-less crons make a new thread each fire; owners are kept apart; a time missed while the
// server was stopped fires once at start with metadata.catch_up (or is skipped with on_missed: skip).
// Waits are on the server's fire events (AgentServerDeps.onCronFire), never fixed sleeps.
import { EventEmitter } from "node:events";
import path from "node:path";
import Database from "better-sqlite3";
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import type { CronFire } from "@thinktank/runs";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";

const adminKey = "admin-key-for-crons";
const script = `
rules: []
fallback:
  reply: "done: {{lastHuman}}"
`;
const temp = makeTempDir("tt-agent-crons-");
const fires = new EventEmitter();
const seen: CronFire[] = [];
const taken = new Set<CronFire>();
let server: AgentServer | undefined;
let url: string;
let admin: Client;
let alice: Client;
let bob: Client;
let aliceKey: string;
let bobKey: string;

function writeConfig(crons: readonly string[]): void {
  writeTree(temp.dir, {
    "config.yaml": ["data_dir: data", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", "crons:", "  min_interval_seconds: 1", "  missed_after_seconds: 5", ...crons, ""].join("\n"),
    "script.yaml": script,
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
  });
}

/** (Re)starts the agent server over the same folder and database. */
async function start(crons: readonly string[] = []): Promise<void> {
  writeConfig(crons);
  server = await buildAgentServer(loadConfig({ cwd: temp.dir, env: { THINKTANK_API_KEY: adminKey } }), { logger: false, onCronFire: (fire) => {
      seen.push(fire);
      fires.emit("fire", fire);
    },
  });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  url = `http://127.0.0.1:${port}`;
  const client = (apiKey: string, headers?: Record<string, string>) => new Client({ apiUrl: url, apiKey, defaultHeaders: headers, callerOptions: { maxRetries: 0 } });
  admin = client(adminKey, { "x-thinktank-scope": "all" });
  alice = client(aliceKey);
  bob = client(bobKey);
}

async function stop(): Promise<void> {
  await server?.close();
  server = undefined;
}

/**
 * The first fire of the cron (with that outcome, when given) not taken by an earlier call, from every
 * fire heard: a listener that stays on, so fires reported in the same tick are all seen.
 */
function nextFire(cronId: string, outcome?: CronFire["outcome"]): Promise<CronFire> {
  return new Promise((resolve) => {
    const take = (): boolean => {
      const fire = seen.find((each) => !taken.has(each) && each.cronId === cronId && (!outcome || each.outcome === outcome));
      if (!fire) return false;
      taken.add(fire);
      fires.off("fire", take);
      resolve(fire);
      return true;
    };
    if (!take()) fires.on("fire", take);
  });
}

/** Sets a cron's next time to `at` in the database of a stopped server: as if the server had been down when that time came. */
function missTime(cronId: string, at: number): void {
  const db = new Database(path.join(temp.dir, "data", "threads.sqlite"));
  try {
    db.prepare("UPDATE thinktank_crons SET next_run_at = ? WHERE cron_id = ?").run(at, cronId);
  } finally {
    db.close();
  }
}

const human = (content: string) => ({ messages: [{ role: "user", content }] });

beforeAll(async () => {
  aliceKey = "";
  bobKey = "";
  await start();
  const [a, b] = await Promise.all(["alice", "bob"].map((name) => (server as AgentServer).identity.users.create({ name, role: "user" })));
  aliceKey = a!.apiKey;
  bobKey = b!.apiKey;
  await stop();
  await start();
}, 120_000);

afterAll(async () => {
  await stop();
  temp.cleanup();
});

describe("crons through the SDK", { timeout: 120_000 }, () => {
  it("fires a seconds-level cron on a thread on time; each fire is a run of the thread, listed and joinable", async () => {
    const thread = await alice.threads.create();
    // The server's first run loads what runs need (seconds on a loaded machine): not a fire's.
    await alice.runs.wait(thread.thread_id, "lead_agent", { input: human("warm up") });
    const cron = await alice.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "* * * * * *", input: human("tick") });
    let first: CronFire;
    let second: CronFire;
    try {
      first = await nextFire(cron.cron_id, "fired");
      second = await nextFire(cron.cron_id, "fired");
    } finally {
      await alice.crons.delete(cron.cron_id);
    }
    expect(second.scheduledFor - first.scheduledFor).toBe(1000);
    // On time: its run exists within a second of its time even when other test runs load the machine (bench/crons.bench.ts measures the delay).
    for (const fire of [first, second]) expect(fire.firedAt - fire.scheduledFor).toBeLessThan(1000);
    const runs = await alice.runs.list(thread.thread_id, { limit: 50 });
    expect(runs.map((run) => run.run_id)).toEqual(expect.arrayContaining([first.runId, second.runId]));
    const run = runs.find((each) => each.run_id === first.runId);
    expect(run?.metadata).toMatchObject({ cron_id: cron.cron_id, scheduled_for: new Date(first.scheduledFor).toISOString() });
    const joined = await alice.runs.join(thread.thread_id, second.runId as string);
    expect(JSON.stringify(joined)).toContain("done: tick");
    expect((await alice.crons.search({ threadId: thread.thread_id }))).toEqual([]);
  });

  it("makes a new thread each fire without a thread: kept with on_run_completed keep, deleted after its run by default", async () => {
    const kept = await alice.crons.create("lead_agent", { schedule: "* * * * * *", input: human("kept"), onRunCompleted: "keep", metadata: { which: "kept" } });
    const fired = [await nextFire(kept.cron_id, "fired"), await nextFire(kept.cron_id, "fired")];
    await alice.crons.delete(kept.cron_id);
    const threads = await alice.threads.search({ metadata: { cron_id: kept.cron_id }, limit: 10 });
    expect(threads.length).toBeGreaterThanOrEqual(2);
    expect(new Set(threads.map((thread) => thread.thread_id)).size).toBe(threads.length);
    for (const fire of fired) {
      const thread = threads.find((each) => each.metadata?.scheduled_for === new Date(fire.scheduledFor).toISOString());
      expect(JSON.stringify(await alice.runs.join(thread!.thread_id, fire.runId as string))).toContain("done: kept");
    }

    const dropped = await alice.crons.create("lead_agent", { schedule: "* * * * * *", input: human("dropped") });
    expect((dropped as { on_run_completed?: string }).on_run_completed).toBe("delete");
    const fire = await nextFire(dropped.cron_id, "fired");
    await alice.crons.delete(dropped.cron_id);
    await expect.poll(async () => (await alice.threads.search({ metadata: { cron_id: dropped.cron_id, scheduled_for: new Date(fire.scheduledFor).toISOString() } })).length, { timeout: 30_000, interval: 50 }).toBe(0);
  });

  it("pauses a cron whose assistant or thread was deleted, with the reason, instead of retrying it", async () => {
    const assistant = await alice.assistants.create({ graphId: "lead_agent", name: "ticker" });
    const byAssistant = await alice.crons.create(assistant.assistant_id, { schedule: "* * * * * *", input: human("as the ticker") });
    expect((await nextFire(byAssistant.cron_id, "fired")).runId).toBeDefined();
    const thread = await alice.threads.create();
    const onThread = await alice.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "* * * * * *", input: human("on the thread") });
    const pausedByAssistant = nextFire(byAssistant.cron_id, "paused");
    const pausedByThread = nextFire(onThread.cron_id, "paused");
    await alice.assistants.delete(assistant.assistant_id);
    await alice.threads.delete(thread.thread_id);
    expect((await pausedByAssistant).reason).toMatchObject({ code: "ASSISTANT_NOT_FOUND" });
    expect((await pausedByThread).reason).toMatchObject({ code: "THREAD_NOT_FOUND" });
    const [assistantCron] = await alice.crons.search({ assistantId: byAssistant.assistant_id });
    expect(assistantCron).toMatchObject({ enabled: false, next_run_date: null, paused_reason: { code: "ASSISTANT_NOT_FOUND" } });
    const [threadCron] = await alice.crons.search({ threadId: thread.thread_id });
    expect(threadCron).toMatchObject({ enabled: false, next_run_date: null, paused_reason: { code: "THREAD_NOT_FOUND" } });
    await alice.crons.delete(byAssistant.cron_id);
    await alice.crons.delete(onThread.cron_id);
  });

  it("keeps each owner's crons their own: another user's is missing to them; an administrator lists everyone's with X-Thinktank-Scope: all", async () => {
    const thread = await alice.threads.create();
    const cron = await alice.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 8 * * 1-5", metadata: { owner: "alice" } });
    expect(cron.user_id).not.toBe("admin");
    expect(await bob.crons.search({ metadata: { owner: "alice" } })).toEqual([]);
    expect(await bob.crons.count({ threadId: thread.thread_id })).toBe(0);
    await expect(bob.crons.update(cron.cron_id, { enabled: false })).rejects.toThrow(/404/);
    await expect(bob.crons.delete(cron.cron_id)).rejects.toThrow(/CRON_NOT_FOUND/);
    await expect(bob.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 8 * * *" })).rejects.toThrow(/THREAD_NOT_FOUND/);
    expect((await admin.crons.search({ metadata: { owner: "alice" } })).map((each) => each.cron_id)).toEqual([cron.cron_id]);
    expect((await alice.crons.search({ metadata: { owner: "alice" } }))[0]).toMatchObject({ cron_id: cron.cron_id, enabled: true });
    await alice.crons.delete(cron.cron_id);
  });

  it("fires a time missed while the server was stopped once at start, with metadata.catch_up; skips it with on_missed: skip", async () => {
    const thread = await alice.threads.create();
    const cron = await alice.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "0 0 1 1 *", input: human("catching up") });
    await stop();
    const missedAt = Date.now() - 60_000;
    missTime(cron.cron_id, missedAt);
    const caught = nextFire(cron.cron_id);
    await start();
    const fire = await caught;
    expect(fire).toMatchObject({ outcome: "caught_up", scheduledFor: missedAt });
    const run = (await alice.runs.list(thread.thread_id)).find((each) => each.run_id === fire.runId);
    expect(run?.metadata).toMatchObject({ catch_up: true, missed_times: 1, scheduled_for: new Date(missedAt).toISOString(), cron_id: cron.cron_id });
    expect(JSON.stringify(await alice.runs.join(thread.thread_id, fire.runId as string))).toContain("done: catching up");
    const after = (await alice.crons.search({ threadId: thread.thread_id }))[0];
    expect(new Date(after?.next_run_date as string).toISOString()).toMatch(/-01-01T00:00:00\.000Z$/);

    await stop();
    missTime(cron.cron_id, Date.now() - 60_000);
    const skipped = nextFire(cron.cron_id);
    await start(["  on_missed: skip"]);
    expect((await skipped).outcome).toBe("skipped");
    expect((await alice.runs.list(thread.thread_id)).filter((each) => each.metadata?.cron_id === cron.cron_id)).toHaveLength(1);
    await alice.crons.delete(cron.cron_id);
  });

  it("answers every cron route 501 NOT_IMPLEMENTED with crons.enabled: false", async () => {
    await stop();
    await start(["  enabled: false"]);
    await expect(alice.crons.search()).rejects.toThrow(/501.*NOT_IMPLEMENTED/);
    await expect(alice.crons.create("lead_agent", { schedule: "0 8 * * *" })).rejects.toThrow(/501.*crons.enabled: false/);
    const info = (await (await fetch(`${url}/info`, { headers: { "x-api-key": aliceKey } })).json()) as { flags: { crons: boolean } };
    expect(info.flags.crons).toBe(false);
    await stop();
    await start();
  });
});
