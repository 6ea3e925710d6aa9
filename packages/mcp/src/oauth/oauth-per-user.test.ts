import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpManager } from "../manager/mcp-manager.js";
import { startOAuthTestServer } from "../manager/testing/oauth-test-server.js";
import type { OAuthTestServer } from "../manager/testing/oauth-test-server.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { OAuthSignIn } from "./oauth-sign-in.js";
import { oauthStatus } from "./oauth-status.js";
import { OAuthTokenStore } from "./oauth-token-store.js";
import { signOut } from "./sign-out.js";

// Tokens per (user, server) and sessions per user, against a real authorization server whose
// protected MCP server answers `whoami` with the account that approved the token's grant.
let temp: { dir: string; cleanup: () => void };
let server: OAuthTestServer;
let store: OAuthTokenStore;
const managers: McpManager[] = [];
const redirectUrl = "http://127.0.0.1:9/callback";
const alice = "usr_a11ce";
const bob = "usr_b0b";

beforeEach(async () => {
  temp = makeTempDir("tt-oauth-users-");
  server = await startOAuthTestServer();
  store = new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await server.close();
  temp.cleanup();
});

function flow(): OAuthSignIn {
  return new OAuthSignIn({ store, env: {}, clientName: "Thinktank test", pendingTtlMs: 60_000, timeoutMs: 5000 });
}

function manager(entries: Record<string, McpServerEntry>): McpManager {
  const created = new McpManager({ mcp: { connect_timeout_ms: 5000, call_timeout_ms: 5000, retries: 1, retry_base_delay_ms: 1, catalog_dir: path.join(temp.dir, "catalog") }, env: {}, oauthStore: store }, entries);
  managers.push(created);
  return created;
}

/** `user` signs in as `account` at the authorization server; the callback names no user (the state does). */
async function signIn(name: string, entry: McpServerEntry, user: string | undefined, account: string): Promise<void> {
  const signIn = flow();
  const started = await signIn.start(name, entry, { redirectUrl, ...(user ? { user } : {}) });
  const callback = new URL(await server.approve(started.authorizationUrl, { account }));
  const finished = await signIn.finish(Object.fromEntries(callback.searchParams), async () => entry);
  expect(finished.user).toBe(user ?? "admin");
}

async function whoami(crm: McpManager, user?: string): Promise<unknown> {
  const result = await crm.callTool("crm", "whoami", {}, user ? { user } : {});
  return (result.structuredContent as { account?: string }).account;
}

describe("OAuth per user", () => {
  it("two users sign in to one server: each call carries the caller's own token; one signs out and only they need sign-in", async () => {
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry, alice, "alice@crm");
    await signIn("crm", entry, bob, "bob@crm");
    const crm = manager({ crm: entry });

    expect(await whoami(crm, alice)).toBe("alice@crm");
    expect(await whoami(crm, bob)).toBe("bob@crm");
    // Interleaved calls on the pooled sessions: each stays with its user's token.
    const answers = await Promise.all([alice, bob, alice, bob].map((user) => whoami(crm, user)));
    expect(answers).toEqual(["alice@crm", "bob@crm", "alice@crm", "bob@crm"]);
    // The operator has not signed in: the others' sign-ins do not count for them.
    expect((await crm.connect("crm")).state).toBe("needs_auth");
    await expect(crm.callTool("crm", "whoami", {})).rejects.toMatchObject({ code: "MCP_NEEDS_AUTH" });
    expect(crm.statusOf("crm", alice).state).toBe("connected");

    const out = await signOut({ store: store.forUser(alice), server: "crm", entry, env: {}, fetch });
    expect(out).toMatchObject({ forgotten: true, revoked: true });
    expect(oauthStatus(store.forUser(alice), "crm", entry, {})).toMatchObject({ signed_in: false });
    expect(oauthStatus(store.forUser(bob), "crm", entry, {})).toMatchObject({ signed_in: true });
    // Alice's live session now sends no token: the server refuses it, and only she needs sign-in.
    await expect(crm.callTool("crm", "whoami", {}, { user: alice })).rejects.toMatchObject({ code: "MCP_NEEDS_AUTH" });
    expect(crm.statusOf("crm", alice).state).toBe("needs_auth");
    expect(await whoami(crm, bob)).toBe("bob@crm");
    expect(crm.statusOf("crm", bob).state).toBe("connected");
    expect(crm.readyServers(bob)).toEqual(["crm"]);
    expect(crm.readyServers(alice)).toEqual([]);
  });

  it("a user who never signed in sees needs_auth even though another has; the tool list they are offered is their own", async () => {
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry, undefined, "operator@crm");
    const crm = manager({ crm: entry });
    expect(await whoami(crm)).toBe("operator@crm");
    expect(crm.readyServers()).toEqual(["crm"]);
    // Bob gets no tools from the operator's session or the shared cache: his own connect decides.
    expect(crm.readyServers(bob)).toEqual([]);
    expect(crm.discoverInBackground(bob)).toEqual(["crm"]);
    await crm.firstConnectsSettled(bob);
    await crm.settled();
    expect(crm.statusOf("crm", bob)).toMatchObject({ state: "needs_auth", reason: expect.stringContaining("not signed in") });
    expect(crm.statusOf("crm").state).toBe("connected");
    expect(oauthStatus(store.forUser(bob), "crm", entry, {})).toMatchObject({ signed_in: false, needs_auth: { reason: "not signed in" } });
    expect(oauthStatus(store, "crm", entry, {})).toMatchObject({ signed_in: true });
  });

  it("keeps the operator's records where they were before users existed, and binds each user's file to them", async () => {
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry, undefined, "operator@crm");
    await signIn("crm", entry, alice, "alice@crm");
    expect(fs.readdirSync(path.join(temp.dir, "oauth", "servers"))).toHaveLength(1);
    const aliceFile = store.forUser(alice).fileOf("crm");
    expect(aliceFile.startsWith(path.join(temp.dir, "oauth", "users") + path.sep)).toBe(true);
    for (const token of server.issuedTokens()) expect(fs.readFileSync(aliceFile, "utf8")).not.toContain(token);
    // A user's file copied over another user's is refused (the user id is sealed with it), never read as theirs.
    const bobFile = store.forUser(bob).fileOf("crm");
    fs.mkdirSync(path.dirname(bobFile), { recursive: true });
    fs.copyFileSync(aliceFile, bobFile);
    expect(() => new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") }).forUser(bob).get("crm")).toThrow(expect.objectContaining({ code: "OAUTH_STORE_UNREADABLE" }));
    // The same for the operator's file put in a user's place.
    fs.copyFileSync(store.fileOf("crm"), bobFile);
    expect(() => new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") }).forUser(bob).get("crm")).toThrow(expect.objectContaining({ code: "OAUTH_STORE_UNREADABLE" }));
  });

  it("closes a user's sessions once they have been idle for userIdleMs, and opens them again on their next use", async () => {
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("crm", entry, alice, "alice@crm");
    let now = 1_000_000;
    const crm = new McpManager({ mcp: { connect_timeout_ms: 5000, call_timeout_ms: 5000, retries: 1, retry_base_delay_ms: 1, catalog_dir: path.join(temp.dir, "catalog") }, env: {}, oauthStore: store, now: () => now, userIdleMs: 60_000 }, { crm: entry });
    managers.push(crm);
    expect(await whoami(crm, alice)).toBe("alice@crm");
    expect(crm.statusOf("crm", alice).state).toBe("connected");
    now += 30_000;
    crm.discoverInBackground();
    expect(crm.statusOf("crm", alice).state).toBe("connected");
    now += 61_000;
    crm.discoverInBackground();
    await crm.settled();
    expect(crm.statusOf("crm", alice).state).toBe("idle");
    expect(await whoami(crm, alice)).toBe("alice@crm");
  });

  it("shares one session of a server that carries no user's credentials", async () => {
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl, headers: { Authorization: "Bearer shared" } };
    const crm = manager({ crm: entry });
    await crm.connect("crm", alice);
    expect(crm.statusOf("crm", alice)).toEqual(crm.statusOf("crm"));
    expect(crm.statusOf("crm", bob)).toEqual(crm.statusOf("crm"));
  });
});

describe("a user's own servers", () => {
  it("are theirs alone, named ~<name>, and never stdio", async () => {
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    await signIn("~notes", entry, alice, "alice@notes");
    const crm = manager({});
    crm.syncUser(alice, { "~notes": entry });
    expect(crm.serverNames(alice)).toEqual(["~notes"]);
    expect(crm.serverNames(bob)).toEqual([]);
    expect(crm.serverNames()).toEqual([]);
    const result = await crm.callTool("~notes", "whoami", {}, { user: alice });
    expect((result.structuredContent as { account?: string }).account).toBe("alice@notes");
    await expect(crm.callTool("~notes", "whoami", {}, { user: bob })).rejects.toMatchObject({ code: "MCP_SERVER_NOT_FOUND" });
    await expect(crm.callTool("~notes", "whoami", {})).rejects.toMatchObject({ code: "MCP_SERVER_NOT_FOUND" });
    expect(() => crm.syncUser(bob, { "~sh": { command: "sh", args: ["-c", "id"] } })).toThrow(expect.objectContaining({ code: "FORBIDDEN" }));
    expect(() => crm.syncUser(bob, { notes: entry })).toThrow(expect.objectContaining({ code: "FORBIDDEN" }));
    expect(crm.syncUser(alice, {})).toMatchObject({ removed: ["~notes"] });
    expect(crm.serverNames(alice)).toEqual([]);
  });
});
