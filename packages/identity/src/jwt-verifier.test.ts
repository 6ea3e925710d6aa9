import crypto from "node:crypto";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, startFloodServer, startHangingServer, startOpenIdProvider, writeTree, type OpenIdProvider } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openIdentity, type Identity, type IdentityOptions } from "./index.js";

const audience = "https://thinktank.test";
let provider: OpenIdProvider;
let temp: ReturnType<typeof makeTempDir>;
const opened: Identity[] = [];
/** Added to the verifier's clock (the provider's tokens use real time). */
let offsetMs = 0;

beforeAll(async () => {
  provider = await startOpenIdProvider();
});
afterAll(async () => {
  await provider.stop();
});
beforeEach(() => {
  temp = makeTempDir("tt-jwt-");
  offsetMs = 0;
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((identity) => identity.close()));
  temp.cleanup();
});

async function open(jwt: Record<string, unknown> = {}, options: IdentityOptions = {}, operatorKey = "operator-key-123"): Promise<Identity> {
  const settings = { issuer: provider.issuer, audience, ...jwt };
  writeTree(temp.dir, { "config.yaml": JSON.stringify({ auth: { jwt: settings } }) });
  const config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), THINKTANK_API_KEY: operatorKey } });
  const identity = await openIdentity(config, { clock: () => new Date(Date.now() + offsetMs), ...options });
  opened.push(identity);
  return identity;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const keyed = { keyless: false };
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const claims = (extra: Record<string, unknown> = {}) => ({ iss: provider.issuer, aud: audience, sub: "alice", exp: Math.floor(Date.now() / 1000) + 600, iat: Math.floor(Date.now() / 1000), ...extra });

describe("JWTs from the frontend's identity provider", () => {
  it("a real access token names jwt:<sub>, its name and role; keys come from discovery, fetched once", async () => {
    const identity = await open();
    const before = { ...provider.fetches };
    const admin = await provider.token({ subject: "alice", audience, name: "Alice", role: ["staff", "admin"] });
    expect(await identity.authenticate(bearer(admin), keyed)).toEqual({ ok: true, caller: { id: "jwt:alice", name: "Alice", role: "admin", auth: "jwt" } });
    const user = await provider.token({ subject: "bob", audience, role: "member" });
    expect(await identity.authenticate({ "x-api-key": user }, keyed)).toEqual({ ok: true, caller: { id: "jwt:bob", name: "jwt:bob", role: "user", auth: "jwt" } });
    // Warm: the same token again costs no fetch.
    expect((await identity.authenticate(bearer(admin), keyed)).ok).toBe(true);
    expect(provider.fetches.discovery - before.discovery).toBe(1);
    expect(provider.fetches.jwks - before.jwks).toBe(1);
    // The operator key still works beside JWTs.
    expect(await identity.authenticate({ "x-api-key": "operator-key-123" }, keyed)).toMatchObject({ ok: true, caller: { id: "admin" } });
  });

  it("jwks_url instead of discovery; the claims to read are configurable (a dotted path reaches nested ones)", async () => {
    const identity = await open({ jwks_url: provider.jwksUrl, user_claim: "client_id", name_claim: "name", role_claim: "realm.roles", admin_roles: ["boss"] });
    const before = provider.fetches.discovery;
    const token = provider.sign(claims({ client_id: "svc-1", name: "Service", realm: { roles: ["boss"] } }));
    expect(await identity.authenticate(bearer(token), keyed)).toEqual({ ok: true, caller: { id: "jwt:svc-1", name: "Service", role: "admin", auth: "jwt" } });
    expect(provider.fetches.discovery).toBe(before);
    expect(await identity.authenticate(bearer(provider.sign(claims({ client_id: undefined }))), keyed)).toEqual({ ok: false, reason: "token has no usable client_id claim" });
  });

  it("refuses an expired token (past the clock skew), and a cached one once it expires", async () => {
    const identity = await open({ clock_skew_seconds: 5 });
    const token = await provider.token({ subject: "alice", audience, expiresInSeconds: 60 });
    expect((await identity.authenticate(bearer(token), keyed)).ok).toBe(true);
    offsetMs = 64_000;
    expect((await identity.authenticate(bearer(provider.sign(claims({ exp: Math.floor(Date.now() / 1000) + 60 }))), keyed)).ok).toBe(true);
    offsetMs = 66_000;
    expect(await identity.authenticate(bearer(token), keyed)).toEqual({ ok: false, reason: "token expired" });
    expect(await identity.authenticate(bearer(provider.sign(claims({ exp: undefined }))), keyed)).toEqual({ ok: false, reason: "token claim exp not valid" });
  });

  it("refuses a wrong audience, a wrong issuer, a tampered payload and an oversized token", async () => {
    const identity = await open();
    const other = await provider.token({ subject: "alice", audience: "https://other.test" });
    expect(await identity.authenticate(bearer(other), keyed)).toEqual({ ok: false, reason: "token audience not accepted" });
    expect(await identity.authenticate(bearer(provider.sign(claims({ iss: "http://127.0.0.1:1" }))), keyed)).toEqual({ ok: false, reason: "token issuer not accepted" });
    const real = await provider.token({ subject: "bob", audience, role: "member" });
    const [header, , signature] = real.split(".");
    const payload = JSON.parse(Buffer.from(real.split(".")[1] as string, "base64url").toString()) as Record<string, unknown>;
    const tampered = `${header}.${encode({ ...payload, role: "admin" })}.${signature}`;
    expect(await identity.authenticate(bearer(tampered), keyed)).toEqual({ ok: false, reason: "token signature not valid" });
    const huge = provider.sign(claims({ padding: "x".repeat(13_000) }));
    expect(await identity.authenticate(bearer(huge), keyed)).toEqual({ ok: false, reason: "token too large" });
  });

  it("refuses alg none and an HS256 token signed with the provider's public key (key confusion)", async () => {
    const identity = await open();
    const unsigned = `${encode({ alg: "none", typ: "JWT" })}.${encode(claims({ role: "admin" }))}.`;
    expect(await identity.authenticate(bearer(unsigned), keyed)).toEqual({ ok: false, reason: "token algorithm not accepted" });
    const { jwk, pem } = provider.publicKey();
    for (const secret of [pem, JSON.stringify(jwk), Buffer.from(jwk.n as string, "base64url")]) {
      const input = `${encode({ alg: "HS256", typ: "JWT", kid: jwk.kid })}.${encode(claims({ role: "admin" }))}`;
      const forged = `${input}.${crypto.createHmac("sha256", secret).update(input).digest("base64url")}`;
      expect(await identity.authenticate(bearer(forged), keyed)).toEqual({ ok: false, reason: "token algorithm not accepted" });
    }
  });

  it("config refuses none and symmetric algorithms at load", () => {
    for (const algorithm of ["none", "HS256", "HS512"]) {
      writeTree(temp.dir, { "config.yaml": JSON.stringify({ auth: { jwt: { issuer: provider.issuer, audience, algorithms: ["RS256", algorithm] } } }) });
      expect(() => loadConfig({ cwd: temp.dir, env: {} })).toThrow(new RegExp(`auth.jwt.algorithms: '${algorithm}'`));
    }
  });

  it("key rotation: a new kid is fetched at once, old tokens verify while the old key is published, not after", async () => {
    const identity = await open({}, { jwt: { jwksCooldownMs: 0, jwksMaxAgeMs: 200, tokenCacheMs: 0 } });
    const old = await provider.token({ subject: "alice", audience });
    expect((await identity.authenticate(bearer(old), keyed)).ok).toBe(true);
    await provider.rotateKey();
    const fresh = await provider.token({ subject: "alice", audience });
    expect(JSON.parse(Buffer.from(fresh.split(".")[0] as string, "base64url").toString()).kid).not.toBe(JSON.parse(Buffer.from(old.split(".")[0] as string, "base64url").toString()).kid);
    expect((await identity.authenticate(bearer(fresh), keyed)).ok).toBe(true);
    expect((await identity.authenticate(bearer(old), keyed)).ok).toBe(true);
    await provider.retireOldKeys();
    await expect.poll(async () => (await identity.authenticate(bearer(old), keyed)).ok, { interval: 50, timeout: 5000 }).toBe(false);
    expect(await identity.authenticate(bearer(old), keyed)).toEqual({ ok: false, reason: "token signed by an unknown key" });
    expect((await identity.authenticate(bearer(fresh), keyed)).ok).toBe(true);
  });

  it("an issuer whose discovery fails: JWTs are refused (not taken for the operator key), other keys still work", async () => {
    const identity = await open({ issuer: "http://127.0.0.1:1" });
    const token = await provider.token({ subject: "alice", audience });
    expect(await identity.authenticate(bearer(token), keyed)).toEqual({ ok: false, reason: "the identity provider's keys are unavailable" });
    expect((await identity.authenticate({ "x-api-key": "operator-key-123" }, keyed)).ok).toBe(true);
  });
  it("discovery is bounded: a document naming another issuer, one too large, a provider that hangs, a JWKS that hangs", async () => {
    const token = await provider.token({ subject: "alice", audience });
    const refused = { ok: false, reason: "the identity provider's keys are unavailable" };
    // The same discovery URL, but the configured issuer differs from the one the document names.
    expect(await (await open({ issuer: `${provider.issuer}/` })).authenticate(bearer(token), keyed)).toEqual(refused);
    const flood = await startFloodServer();
    const hanging = await startHangingServer();
    try {
      expect(await (await open({ issuer: flood.url })).authenticate(bearer(token), keyed)).toEqual(refused);
      expect(flood.bytesSent).toBeLessThan(64 * 1024 * 1024);
      const started = Date.now();
      expect(await (await open({ issuer: hanging.url }, { jwt: { fetchTimeoutMs: 300 } })).authenticate(bearer(token), keyed)).toEqual(refused);
      expect(await (await open({ jwks_url: `${hanging.url}/jwks` }, { jwt: { fetchTimeoutMs: 300 } })).authenticate(bearer(token), keyed)).toEqual(refused);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await Promise.all([flood.close(), hanging.close()]);
    }
  });

  it("an operator key that has a JWT's shape is still the operator's, with auth.jwt configured", async () => {
    const jwtShaped = `${encode({ alg: "RS256" })}.${encode({ sub: "operator" })}.c2lnbmF0dXJl`;
    const identity = await open({}, {}, jwtShaped);
    expect(await identity.authenticate(bearer(jwtShaped), keyed)).toMatchObject({ ok: true, caller: { id: "admin", auth: "key" } });
    expect(await identity.authenticate(bearer(`${jwtShaped}x`), keyed)).toMatchObject({ ok: false });
  });
});
