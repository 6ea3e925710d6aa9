import crypto from "node:crypto";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { loadConfig, type Config } from "@thinktank/core";
import { makeTempDir, needs, writeTree } from "@thinktank/testing";
import { openPostgresConnection } from "@thinktank/runs/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openIdentity, type Identity } from "./index.js";

/** Users, keys and audit on Postgres, in a database of this file's own (the role at THINKTANK_TEST_POSTGRES_URL has CREATEDB). */
const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
const name = `tt_identity_${crypto.randomUUID().replaceAll("-", "")}`;
let temp: ReturnType<typeof makeTempDir>;
let config: Config;

describe("identity on Postgres", needs("postgres"), () => {
  beforeAll(async () => {
    const admin = await openPostgresConnection(url);
    await admin.database.exec(`CREATE DATABASE ${name}`);
    await admin.close();
    const databaseUrl = new URL(url);
    databaseUrl.pathname = `/${name}`;
    temp = makeTempDir("tt-identity-pg-");
    writeTree(temp.dir, { "config.yaml": "agent:\n  threads:\n    backend: postgres\n    postgres_url_env: IDENTITY_TEST_DATABASE_URL\n" });
    config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), IDENTITY_TEST_DATABASE_URL: databaseUrl.toString() } });
  });
  afterAll(async () => {
    temp?.cleanup();
    const admin = await openPostgresConnection(url);
    const left = async () => (await admin.database.all<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ?", [name]))[0]?.n ?? 0;
    // A closed pool's connections end just after pool.end() resolves.
    for (let waited = 0; waited < 10_000 && (await left()) > 0; waited += 50) await delay(50);
    await admin.database.exec(`DROP DATABASE IF EXISTS ${name}`);
    await admin.close();
  });

  it("two replicas opening together each set up once; a user, a key and a revocation reach the other within a second", async () => {
    const [one, two] = (await Promise.all([openIdentity(config), openIdentity(config)])) as [Identity, Identity];
    try {
      expect(one.description).toMatch(/^postgres 127\.0\.0\.1:\d+\/tt_identity_/);
      const { user, apiKey } = await one.users.create({ name: "Ada", role: "user" });
      let started = Date.now();
      await expect.poll(async () => (await two.authenticate({ "x-api-key": apiKey }, { keyless: false })).ok, { interval: 10, timeout: 1000 }).toBe(true);
      const seen = Date.now() - started;
      const second = await two.users.addKey(user.id);
      await expect.poll(async () => (await one.authenticate({ "x-api-key": second!.apiKey }, { keyless: false })).ok, { interval: 10, timeout: 1000 }).toBe(true);
      started = Date.now();
      expect(await two.users.remove(user.id)).toBe(true);
      expect((await two.authenticate({ "x-api-key": apiKey }, { keyless: false })).ok).toBe(false);
      await expect.poll(async () => (await one.authenticate({ "x-api-key": apiKey }, { keyless: false })).ok, { interval: 10, timeout: 1000 }).toBe(false);
      const revoked = Date.now() - started;
      // LISTEN/NOTIFY carries it at once; the 1 s poll is only the fallback.
      expect(Math.max(seen, revoked)).toBeLessThan(500);
      // The audit log is shared too, its detail kept as JSONB.
      await one.audit.record({ actor: undefined, action: "auth.failed", outcome: "denied", detail: { reason: "unknown key", tries: 2 } });
      expect((await two.audit.list({ action: "auth.failed" })).entries).toMatchObject([{ action: "auth.failed", outcome: "denied", detail: { reason: "unknown key", tries: 2 } }]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
  it("a change made while the LISTEN connection is down is still seen (the reconnect's check, else the 1 s poll)", async () => {
    const [one, two] = (await Promise.all([openIdentity(config), openIdentity(config)])) as [Identity, Identity];
    const admin = await openPostgresConnection(url);
    try {
      const { apiKey } = await one.users.create({ name: "Bo", role: "user" });
      await expect.poll(async () => (await two.authenticate({ "x-api-key": apiKey }, { keyless: false })).ok, { interval: 10, timeout: 1000 }).toBe(true);
      await admin.database.all("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND application_name = 'thinktank identity'", [name]);
      const { apiKey: later } = await one.users.create({ name: "Cy", role: "user" });
      await expect.poll(async () => (await two.authenticate({ "x-api-key": later }, { keyless: false })).ok, { interval: 10, timeout: 5000 }).toBe(true);
    } finally {
      await admin.close();
      await Promise.all([one.close(), two.close()]);
    }
  });
});
