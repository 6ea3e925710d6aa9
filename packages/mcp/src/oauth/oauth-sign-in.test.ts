import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpManager } from "../manager/mcp-manager.js";
import type { ManagerLogger } from "../manager/manager-types.js";
import { startOAuthTestServer } from "../manager/testing/oauth-test-server.js";
import type { OAuthTestServer } from "../manager/testing/oauth-test-server.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { OAuthSignIn } from "./oauth-sign-in.js";
import { OAuthTokenStore } from "./oauth-token-store.js";

// The sign-in and the manager against a real authorization server and protected MCP server.
let temp: { dir: string; cleanup: () => void };
let server: OAuthTestServer;
let store: OAuthTokenStore;
const managers: McpManager[] = [];
const redirectUrl = "http://127.0.0.1:9/callback";

beforeEach(async () => {
  temp = makeTempDir("tt-oauth-");
  server = await startOAuthTestServer();
  store = new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await server.close();
  temp.cleanup();
});

function signIn(): OAuthSignIn {
  return new OAuthSignIn({ store, env: {}, clientName: "Thinktank test", pendingTtlMs: 60_000, timeoutMs: 5000 });
}

function manager(entries: Record<string, McpServerEntry>, logger?: ManagerLogger): McpManager {
  const created = new McpManager({ mcp: { connect_timeout_ms: 5000, call_timeout_ms: 5000, retries: 1, retry_base_delay_ms: 1, catalog_dir: path.join(temp.dir, "catalog") }, env: {}, oauthStore: store, ...(logger ? { logger } : {}) }, entries);
  managers.push(created);
  return created;
}

async function signInWith(flow: OAuthSignIn, name: string, entry: McpServerEntry): Promise<void> {
  const started = await flow.start(name, entry, { redirectUrl });
  const callback = new URL(await server.approve(started.authorizationUrl));
  expect(callback.origin + callback.pathname).toBe(redirectUrl);
  const params = Object.fromEntries(callback.searchParams);
  await flow.finish(params, async () => entry);
}

describe.each(["http", "sse"] as const)("OAuth over %s", (transport) => {
  it("needs_auth, then a sign-in, then tools and calls; the token file holds no token in the clear", async () => {
    const entry: McpServerEntry = { type: transport, url: transport === "http" ? server.mcpUrl : server.sseUrl };
    const first = manager({ crm: entry });
    const status = await first.connect("crm");
    expect(status.state).toBe("needs_auth");
    expect(status.reason).toContain("not signed in");
    await expect(first.callTool("crm", "add", { a: 1, b: 2 })).rejects.toMatchObject({ code: "MCP_NEEDS_AUTH" });
    expect(server.stats().unauthorized).toBe(1); // no retry storm: the call did not even try

    await signInWith(signIn(), "crm", entry);
    expect(server.stats().registrations).toBe(1);
    const second = manager({ crm: entry });
    expect(await second.listTools("crm")).toEqual(expect.arrayContaining([expect.objectContaining({ name: "whoami" })]));
    const result = await second.callTool("crm", "add", { a: 2, b: 3 });
    expect(result.structuredContent).toEqual({ sum: 5 });

    const files = fs.readdirSync(path.join(temp.dir, "oauth", "servers"));
    const raw = fs.readFileSync(path.join(temp.dir, "oauth", "servers", files[0] as string), "utf8");
    for (const token of server.issuedTokens()) expect(raw).not.toContain(token);
    expect(fs.statSync(path.join(temp.dir, "oauth", "secret.key")).mode & 0o777).toBe(0o600);
  });
});

describe("OAuth against a v2 SDK server of the 2026-07-28 era only", () => {
  it("needs_auth, then a sign-in, then the 2026-07-28 session lists and calls with the user's token", async () => {
    const entry: McpServerEntry = { type: "http", url: server.modernMcpUrl };
    const first = manager({ crm: entry });
    expect(await first.connect("crm")).toMatchObject({ state: "needs_auth" });
    await expect(first.callTool("crm", "add", { a: 1, b: 2 })).rejects.toMatchObject({ code: "MCP_NEEDS_AUTH" });

    await signInWith(signIn(), "crm", entry);
    const second = manager({ crm: entry });
    expect((await second.listTools("crm")).map((tool) => tool.name).sort()).toEqual(["add", "whoami"]);
    expect(second.statusOf("crm")).toMatchObject({ state: "connected", protocolVersion: "2026-07-28" });
    expect((await second.callTool("crm", "add", { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    const who = (await second.callTool("crm", "whoami", {})).structuredContent as { client_id?: string; scopes: string[] };
    expect(who.scopes).toEqual(["mcp"]);
    expect(who.client_id).toBeTruthy();
  });
});

describe("needs_auth", () => {
  it("logs one line per server, not one per attempt", async () => {
    const warnings: string[] = [];
    const logger: ManagerLogger = { debug() {}, info() {}, error() {}, warn: (_details, message) => void warnings.push(message) };
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    const watched = manager({ crm: entry }, logger);
    expect((await watched.connect("crm")).state).toBe("needs_auth");
    // A sign-in for another URL changes the store: one more attempt, still refused, no second line.
    await signInWith(signIn(), "crm", { type: "http", url: `${server.mcpUrl}?other=1` });
    const refused = server.stats().unauthorized;
    expect(watched.discoverInBackground()).toEqual(["crm"]);
    await watched.settled();
    await expect.poll(() => server.stats().unauthorized).toBe(refused + 1);
    await watched.settled();
    expect(watched.statusOf("crm").state).toBe("needs_auth");
    expect(watched.discoverInBackground()).toEqual([]);
    expect(warnings.filter((message) => message === "mcp server needs sign-in")).toHaveLength(1);
    expect(warnings.filter((message) => message === "mcp server failed to connect")).toHaveLength(0);
  });
});

describe("a server with its own Authorization header", () => {
  it("is not signed in for: a refused header is a failure with the reason, not needs_auth", async () => {
    const configured = manager({ crm: { type: "http", url: server.mcpUrl, headers: { Authorization: "Bearer not-a-token" } } });
    expect(await configured.connect("crm")).toMatchObject({ state: "unavailable", reason: "HTTP 401: the server refused the Authorization header configured for it" });
  });
});
