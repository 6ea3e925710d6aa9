// Two agent servers on one Postgres fire a seconds-level cron exactly once per time: 20 fires with
// both up (claims in the database split them), then one is killed with SIGKILL mid-schedule and the
// other goes on without losing a time. The test config allows a 1 s interval (crons.min_interval_seconds).
import pg from "pg";
import { needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { useSuiteReplicas, type Replica } from "./support/suite-replicas.js";

const script = `
rules: []
fallback:
  reply: "done: {{lastHuman}}"
`;

const suite = useSuiteReplicas({ script, config: ["crons:", "  min_interval_seconds: 1"] });

interface Fire {
  readonly scheduledFor: string;
  readonly runId: string;
  /** The replica that created the run (the run queue's row owner: host:pid:suffix). */
  readonly replica: string;
}

/** The cron's fires so far, read from the runs table (every replica's), oldest time first. */
async function firesOf(cronId: string): Promise<Fire[]> {
  const client = new pg.Client({ connectionString: suite.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ run_id: string; scheduled_for: string; owner: string | null }>(
      "SELECT run_id, metadata->>'scheduled_for' AS scheduled_for, owner FROM thinktank_runs WHERE metadata->>'cron_id' = $1 ORDER BY metadata->>'scheduled_for'",
      [cronId],
    );
    return rows.map((row) => ({ scheduledFor: row.scheduled_for, runId: row.run_id, replica: row.owner ?? "" }));
  } finally {
    await client.end();
  }
}

/** Each time once, and no time between the first and the last left out (the schedule fires every second). */
function expectEverySecondOnce(fires: readonly Fire[]): void {
  const times = fires.map((fire) => Date.parse(fire.scheduledFor));
  expect(new Set(times).size).toBe(times.length);
  for (let index = 1; index < times.length; index++) expect((times[index] as number) - (times[index - 1] as number)).toBe(1000);
}

describe("a cron on two agent servers sharing one Postgres", { timeout: 240_000, ...needs("postgres") }, () => {
  it("fires once per time over 20 fires, each fire a run listed on its thread, and loses no time when a replica is killed", async () => {
    const [a, b] = suite.replicas as [Replica, Replica];
    const thread = await a.client.threads.create();
    // Each replica's first run loads the graph's modules (seconds on a loaded machine, past the suite's 3 s heartbeat bound): not a fire's.
    for (const replica of [a, b]) await replica.client.runs.wait(null, "lead_agent", { input: { messages: [{ role: "user", content: "warm up" }] } });
    const cron = await b.client.crons.createForThread(thread.thread_id, "lead_agent", { schedule: "* * * * * *", input: { messages: [{ role: "user", content: "tick" }] } });

    await expect.poll(async () => (await firesOf(cron.cron_id)).length, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(20);
    const both = await firesOf(cron.cron_id);
    expectEverySecondOnce(both);
    // Every fire is an ordinary run of the thread: listed, and ending as runs do.
    const listed = await a.client.runs.list(thread.thread_id, { limit: 100 });
    const fired = listed.filter((run) => run.metadata?.cron_id === cron.cron_id);
    expect(fired.map((run) => run.run_id)).toEqual(expect.arrayContaining(both.map((fire) => fire.runId)));
    const finished = await a.client.runs.join(thread.thread_id, (both.at(-1) as Fire).runId);
    expect(JSON.stringify(finished)).toContain("done: tick");

    // Killed mid-schedule: the other replica goes on; a claim the dead one held is taken over once stale.
    const killedAt = Date.now();
    b.agent.child.kill("SIGKILL");
    await expect
      .poll(async () => (await firesOf(cron.cron_id)).filter((fire) => Date.parse(fire.scheduledFor) > killedAt + 5_000).length, { timeout: 60_000, interval: 100 })
      .toBeGreaterThanOrEqual(5);
    const all = await firesOf(cron.cron_id);
    expectEverySecondOnce(all);
    const after = all.filter((fire) => Date.parse(fire.scheduledFor) > killedAt + 5_000);
    expect(new Set(after.map((fire) => fire.replica.split(":")[1]))).toEqual(new Set([String(a.agent.child.pid)]));
    await a.client.crons.delete(cron.cron_id);
  });
});
