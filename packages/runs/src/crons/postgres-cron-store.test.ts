import crypto from "node:crypto";
import pg from "pg";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentStore } from "../persistence/agent-store.js";
import { openPostgresAgentStore } from "../persistence/postgres-agent-store.js";
import type { CronRow } from "./cron-record.js";

/**
 * The cron table on Postgres, as replicas share it: two stores (two pools, as two agent servers)
 * on one fresh database. Claims split the due crons and never hand one to both; the per-owner limit
 * holds when both insert at once; a change on one is heard on the other (NOTIFY).
 */
const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
const databaseName = `tt_crons_${crypto.randomUUID().replaceAll("-", "")}`;
let databaseUrl = "";
let one: AgentStore;
let two: AgentStore;

function row(owner: string, extra: Partial<CronRow> = {}): CronRow {
  const now = new Date().toISOString();
  return {
    cron_id: crypto.randomUUID(),
    owner_id: owner,
    assistant_id: "lead_agent",
    thread_id: null,
    schedule: "* * * * * *",
    timezone: null,
    end_time: null,
    on_run_completed: "delete",
    payload: {},
    metadata: {},
    enabled: 1,
    next_run_at: Date.now() - 1000,
    paused_reason: null,
    failures: 0,
    last_run_id: null,
    created_at: now,
    updated_at: now,
    claim_replica: null,
    claim_at: null,
    claim_run_id: null,
    ...extra,
  };
}

describe("the cron table shared by replicas on Postgres", needs("postgres"), () => {
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const parsed = new URL(url);
    parsed.pathname = `/${databaseName}`;
    databaseUrl = parsed.toString();
    [one, two] = await Promise.all([openPostgresAgentStore(databaseUrl), openPostgresAgentStore(databaseUrl)]);
  });

  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  });

  it("splits 200 due crons between two replicas claiming at once, each cron to one, each claim with its own run id", async () => {
    const rows = Array.from({ length: 200 }, () => row("usr_split"));
    for (const each of rows) expect(await one.crons.insert(each, 1000)).toBe(true);
    const now = Date.now();
    const claims = await Promise.all([0, 1, 2, 3].map((index) => (index % 2 === 0 ? one : two).crons.claimDue(`replica-${index}`, now, now - 30_000, 60)));
    const claimed = claims.flat().map((claim) => claim.cron_id);
    expect(new Set(claimed).size).toBe(claimed.length);
    const again = [...(await one.crons.claimDue("replica-0", now, now - 30_000, 500)), ...(await two.crons.claimDue("replica-1", now, now - 30_000, 500))];
    const all = [...claimed, ...again.map((claim) => claim.cron_id)];
    expect(new Set(all).size).toBe(200);
    expect(all).toHaveLength(200);
    const runIds = [...claims.flat(), ...again].map((claim) => claim.claim_run_id);
    expect(new Set(runIds).size).toBe(200);
    for (const runId of runIds) expect(runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Nothing is due while claimed; another replica takes a claim over only once it is stale, with the same run id.
    expect(await two.crons.claimDue("replica-9", now, now - 30_000, 500)).toEqual([]);
    const stale = await two.crons.claimDue("replica-9", now, now + 1, 1);
    expect(stale).toHaveLength(1);
    expect(runIds).toContain(stale[0]?.claim_run_id);
  });

  it("holds the per-owner limit when replicas insert at once", async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? one : two).crons.insert(row("usr_limit", { next_run_at: null }), 5)));
    expect(results.filter(Boolean)).toHaveLength(5);
    expect(await one.crons.count({ owner: "usr_limit" })).toBe(5);
  });

  it("searches by metadata in SQL, and tells the other replica of a change", async () => {
    const heard: string[] = [];
    const listener = await (two.listenForCrons as NonNullable<AgentStore["listenForCrons"]>)(() => heard.push("changed"));
    try {
      const mine = row("usr_search", { metadata: { team: "blue", level: 2 }, next_run_at: null });
      await one.crons.insert(mine, 10);
      await one.crons.insert(row("usr_search", { metadata: { team: "red" }, next_run_at: null }), 10);
      expect((await one.crons.search({ owner: "usr_search", metadata: { team: "blue" }, limit: 10, offset: 0, sort_by: "created_at", sort_order: "desc" })).map((each) => each.cron_id)).toEqual([mine.cron_id]);
      expect(await one.crons.count({ owner: "usr_search", metadata: { level: 2 } })).toBe(1);
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      await one.crons.update(mine.cron_id, { enabled: 0, next_run_at: null });
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    } finally {
      await listener.close();
    }
  });
});
