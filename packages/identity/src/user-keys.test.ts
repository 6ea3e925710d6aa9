import fs from "node:fs";
import path from "node:path";
import { loadConfig, localOperator, type Config } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openIdentity, type Identity } from "./index.js";

let temp: ReturnType<typeof makeTempDir>;
const opened: Identity[] = [];

beforeEach(() => {
  temp = makeTempDir("tt-identity-");
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((identity) => identity.close()));
  temp.cleanup();
});

function configFor(env: Record<string, string> = {}): Config {
  return loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), ...env } });
}

async function open(config: Config): Promise<Identity> {
  const identity = await openIdentity(config);
  opened.push(identity);
  return identity;
}

const keyless = { keyless: true };
const keyed = { keyless: false };

describe("user keys", () => {
  it("made by another process a moment ago authenticate at once, before that process's change is polled for", async () => {
    const config = configFor();
    // The gateway makes users; the agent (another process on the same database) authenticates them.
    const gateway = await openIdentity(config, { pollMs: 600_000 });
    opened.push(gateway);
    const agent = await openIdentity(config, { pollMs: 600_000 });
    opened.push(agent);
    const { user, apiKey } = await gateway.users.create({ name: "Newcomer", role: "user" });
    expect(await agent.authenticate({ "x-api-key": apiKey }, keyed)).toEqual({ ok: true, caller: { id: user.id, name: "Newcomer", role: "user", auth: "key" } });
    // A key nobody made is still refused, and so is a known key id with another secret.
    expect(await agent.authenticate({ "x-api-key": `tt_u_000000000000_${"A".repeat(43)}` }, keyed)).toEqual({ ok: false, reason: "unknown or revoked key" });
    expect(await agent.authenticate({ "x-api-key": `${apiKey.slice(0, 18)}${"B".repeat(43)}` }, keyed)).toEqual({ ok: false, reason: "unknown or revoked key" });
  });

  it("are shown once as tt_u_<id>_<secret>, authenticate by X-API-Key or Bearer, and are kept only as a digest", async () => {
    const config = configFor();
    const identity = await open(config);
    const { user, apiKey } = await identity.users.create({ name: "Ada", role: "user" });
    expect(apiKey).toMatch(/^tt_u_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(user).toMatchObject({ id: expect.stringMatching(/^usr_[0-9a-f]{16}$/), name: "Ada", role: "user" });
    expect(user.keys).toEqual([{ id: apiKey.slice(5, 17), created_at: user.created_at, last4: apiKey.slice(-4) }]);
    const caller = { id: user.id, name: "Ada", role: "user", auth: "key" };
    expect(await identity.authenticate({ "x-api-key": apiKey }, keyed)).toEqual({ ok: true, caller });
    expect(await identity.authenticate({ authorization: `Bearer ${apiKey}` }, keyless)).toEqual({ ok: true, caller });
    // Listings never carry a key again.
    expect(JSON.stringify(await identity.users.list())).not.toContain(apiKey.slice(18));
    // At rest: the secret appears nowhere in the database files, its SHA-256 does.
    const secret = apiKey.slice(18);
    const dir = path.dirname(config.agent.threads.sqlite_path);
    const bytes = Buffer.concat(fs.readdirSync(dir).map((name) => fs.readFileSync(path.join(dir, name))));
    expect(bytes.includes(secret)).toBe(false);
    const { createHash } = await import("node:crypto");
    expect(bytes.includes(createHash("sha256").update(secret).digest("hex"))).toBe(true);
  });

  it("refuses a wrong secret, an unknown key id and a malformed key, saying no more than that", async () => {
    const identity = await open(configFor());
    const { apiKey } = await identity.users.create({ name: "Ada", role: "admin" });
    const last = apiKey.at(-1) === "A" ? "B" : "A";
    expect(await identity.authenticate({ "x-api-key": apiKey.slice(0, -1) + last }, keyed)).toEqual({ ok: false, reason: "unknown or revoked key" });
    expect(await identity.authenticate({ "x-api-key": `tt_u_000000000000_${apiKey.slice(18)}` }, keyed)).toEqual({ ok: false, reason: "unknown or revoked key" });
    expect(await identity.authenticate({ "x-api-key": apiKey.slice(0, -2) }, keyless)).toEqual({ ok: false, reason: "malformed user key" });
    expect(await identity.authenticate({ "x-api-key": [apiKey, apiKey] }, keyed)).toEqual({ ok: false, reason: "more than one X-API-Key header" });
  });

  it("rotate: a second key works beside the first until the first is deleted; a deleted user's keys stop at once", async () => {
    const identity = await open(configFor());
    const { user, apiKey: first } = await identity.users.create({ name: "Ada", role: "user" });
    const second = await identity.users.addKey(user.id);
    expect(second?.apiKey).toMatch(/^tt_u_/);
    expect((await identity.authenticate({ "x-api-key": first }, keyed)).ok).toBe(true);
    expect((await identity.authenticate({ "x-api-key": second!.apiKey }, keyed)).ok).toBe(true);
    // Keys made in the same millisecond have no order between them.
    expect((await identity.users.get(user.id))?.keys.map((key) => key.id).sort()).toEqual([first.slice(5, 17), second!.keyId].sort());
    expect(await identity.users.removeKey(user.id, first.slice(5, 17))).toBe(true);
    expect(await identity.users.removeKey(user.id, first.slice(5, 17))).toBe(false);
    expect(await identity.authenticate({ "x-api-key": first }, keyed)).toEqual({ ok: false, reason: "unknown or revoked key" });
    expect((await identity.authenticate({ "x-api-key": second!.apiKey }, keyed)).ok).toBe(true);
    // Another user's key id cannot be removed through this user.
    const other = await identity.users.create({ name: "Bo", role: "user" });
    expect(await identity.users.removeKey(user.id, other.apiKey.slice(5, 17))).toBe(false);
    expect(await identity.users.remove(user.id)).toBe(true);
    expect(await identity.users.remove(user.id)).toBe(false);
    expect(await identity.authenticate({ "x-api-key": second!.apiKey }, keyed)).toEqual({ ok: false, reason: "unknown or revoked key" });
    expect(await identity.users.addKey(user.id)).toBeUndefined();
    expect(await identity.users.get(user.id)).toBeUndefined();
    expect((await identity.users.list()).map((each) => each.name)).toEqual(["Bo"]);
  });

  it("refuses bad names and roles with VALIDATION_FAILED", async () => {
    const identity = await open(configFor());
    await expect(identity.users.create({ name: " ", role: "user" })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await expect(identity.users.create({ name: "x\u0000", role: "user" })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await expect(identity.users.create({ name: "x", role: "root" as "user" })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });
});

describe("the operator", () => {
  it("THINKTANK_API_KEY names the operator; without credentials a keyed service has no caller, a key-less one the local operator", async () => {
    const identity = await open(configFor({ THINKTANK_API_KEY: "operator-key-123" }));
    expect(await identity.authenticate({ "x-api-key": "operator-key-123" }, keyed)).toEqual({ ok: true, caller: { id: "admin", name: "admin", role: "admin", auth: "key" } });
    expect(await identity.authenticate({ authorization: "Bearer operator-key-123" }, keyed)).toMatchObject({ ok: true, caller: { id: "admin" } });
    expect(await identity.authenticate({ "x-api-key": "operator-key-124" }, keyed)).toEqual({ ok: false, reason: "unknown key" });
    expect(await identity.authenticate({}, keyed)).toEqual({ ok: true, caller: undefined });
  });

  it("a key-less service: no credentials is the local operator, wrong ones are still refused", async () => {
    const identity = await open(configFor());
    expect(await identity.authenticate({}, keyless)).toEqual({ ok: true, caller: localOperator });
    expect(await identity.authenticate({ "x-api-key": "anything" }, keyless)).toEqual({ ok: false, reason: "unknown key" });
    // A JWT-shaped value without auth.jwt configured is just a wrong key.
    expect(await identity.authenticate({ authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." }, keyless)).toEqual({ ok: false, reason: "unknown key" });
  });
});

describe("across processes on one SQLite file", () => {
  it("a user, a key and a revocation made by one are seen by the other within a second", async () => {
    const config = configFor();
    const one = await open(config);
    const two = await open(config);
    const { user, apiKey } = await one.users.create({ name: "Ada", role: "user" });
    let started = Date.now();
    await expect.poll(async () => (await two.authenticate({ "x-api-key": apiKey }, keyed)).ok, { interval: 20, timeout: 1000 }).toBe(true);
    const seen = Date.now() - started;
    started = Date.now();
    expect(await one.users.remove(user.id)).toBe(true);
    await expect.poll(async () => (await two.authenticate({ "x-api-key": apiKey }, keyed)).ok, { interval: 20, timeout: 1000 }).toBe(false);
    const revoked = Date.now() - started;
    expect(Math.max(seen, revoked)).toBeLessThan(1000);
  });
});
