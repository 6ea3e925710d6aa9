import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { ThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpManager } from "../manager/mcp-manager.js";
import { startOAuthTestServer } from "../manager/testing/oauth-test-server.js";
import type { OAuthTestServer, OAuthTestServerOptions } from "../manager/testing/oauth-test-server.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { OAuthSignIn } from "./oauth-sign-in.js";
import { oauthStatus } from "./oauth-status.js";
import { OAuthTokenStore } from "./oauth-token-store.js";

// Refresh, revocation, client credentials, registered clients and hostile metadata, against a
// real authorization server; two real processes refreshing one sign-in at once.
let temp: { dir: string; cleanup: () => void };
let server: OAuthTestServer;
let store: OAuthTokenStore;
const managers: McpManager[] = [];
const redirectUrl = "http://127.0.0.1:9/callback";
const hour = 3_600_000;

beforeEach(() => {
  temp = makeTempDir("tt-oauth-tokens-");
  store = new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await server?.close();
  temp.cleanup();
});

async function start(options: OAuthTestServerOptions = {}): Promise<void> {
  server = await startOAuthTestServer(options);
}

function manager(entries: Record<string, McpServerEntry>, options: { now?: () => number; env?: Record<string, string> } = {}): McpManager {
  const created = new McpManager(
    { mcp: { connect_timeout_ms: 5000, call_timeout_ms: 5000, retries: 1, retry_base_delay_ms: 1, catalog_dir: path.join(temp.dir, "catalog") }, env: options.env ?? {}, oauthStore: store, now: options.now ?? Date.now },
    entries,
  );
  managers.push(created);
  return created;
}

const flow = (): OAuthSignIn => new OAuthSignIn({ store, env: {}, clientName: "Thinktank test", pendingTtlMs: 60_000, timeoutMs: 5000 });

async function signIn(name: string, entry: McpServerEntry): Promise<void> {
  const signInFlow = flow();
  const started = await signInFlow.start(name, entry, { redirectUrl });
  const callback = new URL(await server.approve(started.authorizationUrl));
  await signInFlow.finish(Object.fromEntries(callback.searchParams), async () => entry);
}

describe("stored sign-ins", () => {
  it("refreshes an access token before it expires, and once when the server refuses it", async () => {
    await start();
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry);
    // Two hours on, the one-hour token counts as expiring: refreshed before the call.
    const later = manager({ crm: entry }, { now: () => Date.now() + 2 * hour });
    expect((await later.callTool("crm", "add", { a: 1, b: 1 })).structuredContent).toEqual({ sum: 2 });
    expect(server.stats().refreshes).toBe(1);
    // The server drops every access token: the next call gets a 401, refreshes once and goes through.
    server.expireAccessTokens();
    const now = manager({ crm: entry });
    expect((await now.callTool("crm", "add", { a: 2, b: 2 })).structuredContent).toEqual({ sum: 4 });
    expect(server.stats().refreshes).toBe(2);
    expect(server.stats().refreshReuses).toBe(0);
  });

  it("goes back to needs_auth when the refresh token is revoked, and forgets the dead tokens", async () => {
    await start();
    const entry: McpServerEntry = { type: "sse", url: server.sseUrl };
    await signIn("crm", entry);
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    const revoked = manager({ crm: entry });
    await expect(revoked.callTool("crm", "add", { a: 1, b: 2 })).rejects.toMatchObject({ code: "MCP_NEEDS_AUTH" });
    expect(revoked.statusOf("crm")).toMatchObject({ state: "needs_auth", reason: expect.stringContaining("refused the refresh token (invalid_grant)") });
    expect(revoked.readyServers()).toEqual([]);
    expect(revoked.knownTools("crm")).toBeUndefined();
    await revoked.settled();
    expect(oauthStatus(store, "crm", entry, {})).toMatchObject({ signed_in: false, needs_auth: { reason: expect.stringContaining("invalid_grant") } });
    // No storm: background discovery leaves it alone until someone signs in again.
    expect(revoked.discoverInBackground()).toEqual([]);
    await signIn("crm", entry);
    expect(revoked.discoverInBackground()).toEqual(["crm"]);
    await revoked.settled();
    await expect.poll(() => revoked.statusOf("crm").state).toBe("connected");
  });

  it("a server never signed in stays needs_auth once the store notes it: noting it is no new sign-in", async () => {
    await start();
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    const fresh = manager({ crm: entry });
    expect(await fresh.connect("crm")).toMatchObject({ state: "needs_auth", reason: expect.stringContaining("not signed in") });
    await fresh.settled();
    expect(oauthStatus(store, "crm", entry, {})).toMatchObject({ signed_in: false, needs_auth: { reason: "not signed in" } });
    const unauthorized = server.stats().unauthorized;
    expect(fresh.discoverInBackground()).toEqual([]);
    expect(fresh.statusOf("crm").state).toBe("needs_auth");
    expect(server.stats().unauthorized).toBe(unauthorized);
  });

  it("uses a token only for the URL it was signed in for", async () => {
    await start();
    await signIn("crm", { type: "http", url: server.mcpUrl });
    const moved = manager({ crm: { type: "http", url: `${server.mcpUrl}?tenant=2` } });
    expect(await moved.connect("crm")).toMatchObject({ state: "needs_auth", reason: expect.stringContaining("signed in for another URL") });
  });

  it("two processes refreshing at once spend the refresh token once and both get through", async () => {
    await start();
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry);
    const fixture = path.join(import.meta.dirname, "fixtures", "call-with-shifted-clock.ts");
    const children = [0, 1].map(() => spawn(process.execPath, ["--import", import.meta.resolve("tsx"), fixture, store.dir, server.mcpUrl, String(2 * hour)], { stdio: ["pipe", "pipe", "inherit"] }));
    const lines = children.map((child) => {
      let buffer = "";
      const seen: string[] = [];
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const parts = buffer.split("\n");
        buffer = parts.pop() ?? "";
        seen.push(...parts);
      });
      return seen;
    });
    const waitLine = (index: number, match: (line: string) => boolean): Promise<string> =>
      expect.poll(() => lines[index]?.find(match), { timeout: 60_000 }).toBeDefined().then(() => lines[index]?.find(match) as string);
    await Promise.all([waitLine(0, (line) => line === "ready"), waitLine(1, (line) => line === "ready")]);
    for (const child of children) child.stdin.write("go\n");
    const results = await Promise.all([0, 1].map((index) => waitLine(index, (line) => line.startsWith("{"))));
    expect(results.map((line) => JSON.parse(line))).toEqual([
      { ok: true, sum: 42 },
      { ok: true, sum: 42 },
    ]);
    expect(server.stats()).toMatchObject({ refreshes: 1, refreshReuses: 0 });
    // The rotated refresh token was kept: it still refreshes.
    server.expireAccessTokens();
    expect((await manager({ crm: entry }).callTool("crm", "add", { a: 1, b: 1 })).structuredContent).toEqual({ sum: 2 });
    expect(server.stats()).toMatchObject({ refreshes: 2, refreshReuses: 0 });
  }, 90_000);

  it("cannot be read without the key: another THINKTANK_SECRET_KEY fails clearly, and the file holds no token", async () => {
    await start();
    store = new OAuthTokenStore({ dir: path.join(temp.dir, "oauth"), secret: "the right key" });
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry);
    const other = new OAuthTokenStore({ dir: store.dir, secret: "another key" });
    expect(() => other.get("crm")).toThrow(expect.objectContaining({ code: "OAUTH_STORE_UNREADABLE" }) as ThinktankError);
    const keyless = new OAuthTokenStore({ dir: store.dir });
    expect(() => keyless.get("crm")).toThrow(/cannot be decrypted/);
    const raw = fs.readFileSync(store.fileOf("crm"), "utf8");
    for (const token of server.issuedTokens()) expect(raw).not.toContain(token);
    expect(store.get("crm")?.tokens?.access_token).toBe(server.issuedTokens()[0]);
  });
});

describe("clients", () => {
  it("client credentials: a token without a sign-in, the secret from ${VAR}; a wrong secret is a failure, not needs_auth", async () => {
    await start({ clientCredentials: { "svc-1": "s3cret-value" } });
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl, oauth: { grant: "client_credentials", client_id: "svc-1", client_secret: "${SVC_SECRET}" } };
    const good = manager({ svc: entry }, { env: { SVC_SECRET: "s3cret-value" } });
    expect((await good.callTool("svc", "whoami", {})).structuredContent).toEqual({ client_id: "svc-1", scopes: ["mcp"] });
    expect(server.stats()).toMatchObject({ clientCredentials: 1, registrations: 0 });
    const bad = manager({ svc: { ...entry, oauth: { ...entry.oauth, client_id: "svc-2" } } }, { env: { SVC_SECRET: "s3cret-value" } });
    expect(await bad.connect("svc")).toMatchObject({ state: "unavailable", reason: expect.stringContaining("invalid_client") });
    await expect(flow().start("svc", entry, { redirectUrl })).rejects.toMatchObject({ code: "OAUTH_NOT_APPLICABLE" });
  });

  it("a pre-registered client signs in without dynamic registration; without one, the sign-in says to configure it", async () => {
    await start({ dynamicRegistration: false });
    server.addClient({ client_id: "pre-registered", redirect_uris: [redirectUrl] });
    await expect(flow().start("crm", { type: "http", url: server.mcpUrl }, { redirectUrl })).rejects.toMatchObject({ code: "OAUTH_NOT_APPLICABLE", message: expect.stringContaining("oauth.client_id") });
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl, oauth: { clientId: "pre-registered" } };
    await signIn("crm", entry);
    expect((await manager({ crm: entry }).callTool("crm", "whoami", {})).structuredContent).toMatchObject({ client_id: "pre-registered" });
    expect(server.stats().registrations).toBe(0);
    expect(store.get("crm")?.client).toBeUndefined();
  });

  it("a token without a scope the server needs (403 insufficient_scope) is needs_auth naming the scope; signing in again asks for it", async () => {
    await start({ scopes: ["mcp", "admin"], requiredScopes: ["mcp"] });
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl, oauth: { scopes: ["mcp"] } };
    await signIn("crm", entry);
    server.requireScopes(["mcp", "admin"]);
    const narrow = manager({ crm: entry });
    expect(await narrow.connect("crm")).toMatchObject({ state: "needs_auth", reason: expect.stringContaining("it asks for scope 'mcp admin'") });
    const signInFlow = flow();
    const started = await signInFlow.start("crm", entry, { redirectUrl });
    expect(new URL(started.authorizationUrl).searchParams.get("scope")).toBe("mcp admin");
    const callback = new URL(await server.approve(started.authorizationUrl));
    await signInFlow.finish(Object.fromEntries(callback.searchParams), async () => entry);
    expect((await manager({ crm: entry }).callTool("crm", "whoami", {})).structuredContent).toMatchObject({ scopes: ["mcp", "admin"] });
  });

  it("refuses metadata whose token endpoint is on another host than its issuer, storing nothing", async () => {
    await start({ tokenEndpointHost: "localhost" });
    await expect(flow().start("crm", { type: "http", url: server.mcpUrl }, { redirectUrl })).rejects.toMatchObject({
      code: "OAUTH_METADATA_REJECTED",
      message: expect.stringContaining("token_endpoint is on localhost"),
    });
    expect(fs.existsSync(store.fileOf("crm"))).toBe(false);
    expect(server.stats().registrations).toBe(0);
  });
});
