import crypto from "node:crypto";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { loadConfig, type Config } from "@thinktank/core";
import { makeTempDir, needs, writeTree } from "@thinktank/testing";
import { openPostgresConnection, openSqliteConnection } from "@thinktank/runs/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openIdentity, sessionCookieName, type Identity } from "./index.js";

// Console sessions (docs/console.md, "Sign-in and sessions") on SQLite and Postgres: one suite, two databases.

const operatorKey = "operator-key-for-console-session-tests";

interface Database {
  readonly config: Config;
  rows(): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function sessionSuite(open: () => Promise<Database>): void {
  let database: Database;
  let identity: Identity;
  let now = Date.parse("2026-11-28T10:00:00.000Z");
  const clock = () => new Date(now);
  beforeAll(async () => {
    database = await open();
    identity = await openIdentity(database.config, { clock });
  });
  afterAll(async () => {
    await identity?.close();
    await database?.close();
  });

  const cookie = (id: string) => `other=1; ${sessionCookieName}=${id}`;

  it("stores only the hash of the session id; the cookie is a credential, with the CSRF token on unsafe methods", async () => {
    const { apiKey } = await identity.users.create({ name: "ada", role: "user" });
    const signedIn = await identity.signInWithKey(apiKey);
    if (!signedIn.ok) throw new Error(signedIn.reason);
    const { id, session } = await identity.sessions.create({ caller: signedIn.caller, method: "api_key", ...(signedIn.keyId ? { keyId: signedIn.keyId } : {}) });
    const rows = await database.rows();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(id);
    expect(text).toContain(crypto.createHash("sha256").update(id).digest("hex"));
    expect(text).not.toContain(apiKey);

    const read = await identity.authenticate({ cookie: cookie(id) }, { keyless: false, method: "GET" });
    expect(read).toMatchObject({ ok: true, caller: { name: "ada", role: "user", auth: "key" }, session: { method: "api_key", csrfToken: session.csrfToken } });
    for (const token of [undefined, "", "wrong", session.csrfToken.slice(1), `${session.csrfToken}x`]) {
      const write = await identity.authenticate({ cookie: cookie(id), ...(token === undefined ? {} : { "x-csrf-token": token }) }, { keyless: false, method: "POST" });
      expect(write, String(token)).toMatchObject({ ok: false, code: "CSRF_FAILED" });
    }
    // Without the method the request is taken as unsafe (the /mcp endpoint's check).
    expect(await identity.authenticate({ cookie: cookie(id) }, { keyless: false })).toMatchObject({ ok: false, code: "CSRF_FAILED" });
    expect(await identity.authenticate({ cookie: cookie(id), "x-csrf-token": session.csrfToken }, { keyless: false, method: "DELETE" })).toMatchObject({ ok: true, caller: { name: "ada" } });
    // Two CSRF headers are not a token.
    expect(await identity.authenticate({ cookie: cookie(id), "x-csrf-token": [session.csrfToken, session.csrfToken] }, { keyless: false, method: "POST" })).toMatchObject({ ok: false, code: "CSRF_FAILED" });
    // A key sent as a header wins over the cookie and needs no CSRF token.
    expect(await identity.authenticate({ cookie: cookie(id), "x-api-key": operatorKey }, { keyless: false, method: "POST" })).toMatchObject({ ok: true, caller: { id: "admin" } });
  });

  it("ends a session at its absolute end however used, and after idle_minutes unused", async () => {
    const { id } = await identity.sessions.create({ caller: { id: "admin", name: "admin", role: "admin", auth: "key" }, method: "api_key" });
    // Used every 100 minutes (under the 120 idle minutes) it lives until 12 hours after sign-in.
    for (let step = 0; step < 7; step++) {
      now += 100 * 60_000;
      expect(await identity.authenticate({ cookie: cookie(id) }, { keyless: false, method: "GET" }), `step ${step}`).toMatchObject({ ok: true });
    }
    now += 60 * 60_000; // 12 h 40 min after sign-in
    expect(await identity.authenticate({ cookie: cookie(id) }, { keyless: false, method: "GET" })).toEqual({ ok: false, reason: "session expired", code: "SESSION_EXPIRED" });

    const idle = await identity.sessions.create({ caller: { id: "admin", name: "admin", role: "admin", auth: "key" }, method: "api_key" });
    now += 121 * 60_000;
    expect(await identity.authenticate({ cookie: cookie(idle.id) }, { keyless: false, method: "GET" })).toEqual({ ok: false, reason: "session idle too long", code: "SESSION_EXPIRED" });
    // The row is gone: a later look finds nothing, never a resurrected session.
    expect(await identity.authenticate({ cookie: cookie(idle.id) }, { keyless: false, method: "GET" })).toMatchObject({ ok: false, reason: "no such session" });
  });

  it("ends a key's sessions with the key, and refuses unknown or malformed ids without a query's worth of difference", async () => {
    const { user, apiKey } = await identity.users.create({ name: "bob", role: "user" });
    const signedIn = await identity.signInWithKey(apiKey);
    if (!signedIn.ok || !signedIn.keyId) throw new Error("sign-in failed");
    const { id } = await identity.sessions.create({ caller: signedIn.caller, method: "api_key", keyId: signedIn.keyId });
    expect(await identity.authenticate({ cookie: cookie(id) }, { keyless: false, method: "GET" })).toMatchObject({ ok: true, caller: { id: user.id } });
    await identity.users.removeKey(user.id, signedIn.keyId);
    expect(await identity.authenticate({ cookie: cookie(id) }, { keyless: false, method: "GET" })).toMatchObject({ ok: false, code: "SESSION_EXPIRED" });
    for (const bad of ["", "x", "a".repeat(43), "../../etc", "' OR 1=1 --"]) {
      expect(await identity.authenticate({ cookie: cookie(bad) }, { keyless: false, method: "GET" }), bad).toMatchObject({ ok: false, code: "SESSION_EXPIRED" });
    }
    // On a key-less service, a dead cookie is still refused (never silently the local administrator).
    expect(await identity.authenticate({ cookie: cookie("a".repeat(43)) }, { keyless: true, method: "GET" })).toMatchObject({ ok: false, code: "SESSION_EXPIRED" });
  });

  it("signs in with a user key or the operator key, never a JWT-shaped or unknown value", async () => {
    expect(await identity.signInWithKey(operatorKey)).toMatchObject({ ok: true, caller: { id: "admin", role: "admin" } });
    expect(await identity.signInWithKey("nope")).toEqual({ ok: false, reason: "unknown key" });
    expect(await identity.signInWithKey("a.b.c")).toEqual({ ok: false, reason: "unknown key" });
    expect(await identity.signInWithKey("tt_u_000000000000_xxx")).toMatchObject({ ok: false });
    const { id } = await identity.sessions.create({ caller: { id: "admin", name: "admin", role: "admin", auth: "key" }, method: "api_key" });
    expect(await identity.sessions.remove(id)).toBe(true);
    expect(await identity.sessions.remove(id)).toBe(false);
  });
}

describe("console sessions on SQLite", () => {
  sessionSuite(async () => {
    const temp = makeTempDir("tt-sessions-");
    const config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), THINKTANK_API_KEY: operatorKey } });
    const connection = await openSqliteConnection(config.agent.threads.sqlite_path);
    return {
      config,
      rows: () => connection.database.all("SELECT * FROM thinktank_console_sessions"),
      close: async () => {
        await connection.close();
        temp.cleanup();
      },
    };
  });
});

describe("console sessions on Postgres", needs("postgres"), () => {
  sessionSuite(async () => {
    const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
    const name = `tt_sessions_${crypto.randomUUID().replaceAll("-", "")}`;
    const admin = await openPostgresConnection(url);
    await admin.database.exec(`CREATE DATABASE ${name}`);
    const databaseUrl = new URL(url);
    databaseUrl.pathname = `/${name}`;
    const temp = makeTempDir("tt-sessions-pg-");
    writeTree(temp.dir, { "config.yaml": "agent:\n  threads:\n    backend: postgres\n    postgres_url_env: SESSIONS_TEST_DATABASE_URL\n" });
    const config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), SESSIONS_TEST_DATABASE_URL: databaseUrl.toString(), THINKTANK_API_KEY: operatorKey } });
    const connection = await openPostgresConnection(databaseUrl.toString());
    return {
      config,
      rows: () => connection.database.all("SELECT * FROM thinktank_console_sessions"),
      close: async () => {
        await connection.close();
        temp.cleanup();
        const left = async () => (await admin.database.all<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ?", [name]))[0]?.n ?? 0;
        for (let waited = 0; waited < 10_000 && (await left()) > 0; waited += 50) await delay(50);
        await admin.database.exec(`DROP DATABASE IF EXISTS ${name}`);
        await admin.close();
      },
    };
  });
});

describe("the console's OpenID sign-in at open", () => {
  it("stops start-up when console.oidc.client_secret_env names an unset variable, and is opened only for the gateway", async () => {
    const temp = makeTempDir("tt-oidc-config-");
    try {
      writeTree(temp.dir, {
        "config.yaml": "auth:\n  jwt:\n    issuer: http://127.0.0.1:9/\n    audience: api\nconsole:\n  oidc:\n    client_id: console\n    client_secret_env: CONSOLE_SECRET\n",
      });
      const config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data") } });
      await expect(openIdentity(config, { consoleSignIn: true })).rejects.toMatchObject({ code: "CONFIG_INVALID", message: expect.stringContaining("CONSOLE_SECRET") });
      const agentSide = await openIdentity(config);
      expect(agentSide.oidc).toBeUndefined();
      await agentSide.close();
      const withSecret = await openIdentity(loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), CONSOLE_SECRET: "s" } }), { consoleSignIn: true });
      expect(withSecret.oidc).toBeDefined();
      await withSecret.close();
    } finally {
      temp.cleanup();
    }
  });
});
