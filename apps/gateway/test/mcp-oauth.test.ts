import fs from "node:fs";
import path from "node:path";
import { createOAuthTokenStore, McpManager } from "@thinktank/mcp";
import type { McpServerEntry } from "@thinktank/mcp";
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

// OAuth sign-in through the gateway's routes, over real HTTP, against a real authorization server
// and protected MCP server; the agent's side is an McpManager over the same token store.
let server: OAuthTestServer;
let gateway: TestGateway;
let base: string;
const managers: McpManager[] = [];

beforeEach(async () => {
  server = await startOAuthTestServer();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await gateway?.close();
  await server.close();
});

async function start(options: { configYaml?: string; apiKey?: string; servers?: Record<string, unknown> } = {}): Promise<void> {
  const servers = options.servers ?? { crm: { type: "http", url: server.mcpUrl }, legacy: { type: "sse", url: server.sseUrl }, local: { command: "node" } };
  gateway = await createTestGateway({ extensions: { mcpServers: servers, skills: {}, plugins: {}, tools: {} }, ...(options.configYaml ? { configYaml: options.configYaml } : {}), ...(options.apiKey ? { apiKey: options.apiKey } : {}) });
  base = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
}

/** The agent's view: a manager over the gateway's token store. */
function agentManager(entries: Record<string, McpServerEntry>): McpManager {
  const manager = new McpManager({ mcp: { ...gateway.config.mcp, retries: 0 }, env: {}, oauthStore: createOAuthTokenStore(gateway.config) }, entries);
  managers.push(manager);
  return manager;
}

async function post(url: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${url}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

async function startSignIn(name: string, body: unknown = {}): Promise<string> {
  const response = await post(`/api/mcp/servers/${encodeURIComponent(name)}/auth`, body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { authorization_url: string }).authorization_url;
}

function tokenFiles(): string[] {
  const dir = path.join(gateway.config.data_dir, "oauth", "servers");
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => fs.readFileSync(path.join(dir, name), "utf8")) : [];
}

describe("sign-in through the gateway", () => {
  it("needs_auth → POST auth → approve → callback page → signed in → tools; no token in any response, log line or extensions_config.json", async () => {
    await start();
    const bodies: string[] = [];
    const codes: string[] = [];
    const before = agentManager({ crm: { type: "http", url: server.mcpUrl }, legacy: { type: "sse", url: server.sseUrl } });
    expect((await before.connectAll({ once: true })).map((status) => status.state)).toEqual(["needs_auth", "needs_auth"]);
    await before.settled();
    const listed = await (await fetch(`${base}/api/mcp/servers`)).text();
    bodies.push(listed);
    const byName = Object.fromEntries((JSON.parse(listed) as { servers: { name: string; status?: string; reason?: string }[] }).servers.map((s) => [s.name, s]));
    expect(byName.crm).toMatchObject({ status: "needs_auth", reason: "not signed in" });
    expect(byName.legacy).toMatchObject({ status: "needs_auth" });
    expect(byName.local).toMatchObject({ status: "unknown", reason: expect.stringContaining("no agent server has reported") });

    for (const name of ["crm", "legacy"]) {
      const authorizationUrl = await startSignIn(name);
      expect(new URL(authorizationUrl).origin).toBe(server.origin);
      expect(new URL(authorizationUrl).searchParams.get("code_challenge_method")).toBe("S256");
      expect(new URL(authorizationUrl).searchParams.get("redirect_uri")).toBe(`${base}/api/mcp/oauth/callback`);
      const callback = await server.approve(authorizationUrl);
      codes.push(new URL(callback).searchParams.get("code") as string);
      const page = await fetch(callback, { headers: { accept: "text/html" } });
      const html = await page.text();
      bodies.push(html);
      expect([page.status, html]).toEqual([200, expect.stringContaining(`Connected to <strong>${name}</strong>`)]);
      const status = await (await fetch(`${base}/api/mcp/servers/${name}/auth`)).text();
      bodies.push(status);
      expect(JSON.parse(status)).toMatchObject({ server: name, signed_in: true, scopes: ["mcp"], refreshable: true, grant: "authorization_code" });
    }
    const after = await (await fetch(`${base}/api/mcp/servers`)).text();
    bodies.push(after);
    expect((JSON.parse(after) as { servers: { name: string; status?: string; auth?: { signed_in: boolean } }[] }).servers.find((s) => s.name === "crm")).toMatchObject({ auth: { signed_in: true } });

    const agent = agentManager({ crm: { type: "http", url: server.mcpUrl }, legacy: { type: "sse", url: server.sseUrl } });
    expect((await agent.callTool("crm", "add", { a: 40, b: 2 })).structuredContent).toEqual({ sum: 42 });
    expect((await agent.callTool("legacy", "whoami", {})).structuredContent).toMatchObject({ scopes: ["mcp"] });

    const tokens = server.issuedTokens();
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    const everywhere = [...bodies, gateway.logs(), fs.readFileSync(gateway.file, "utf8"), ...tokenFiles()].join("\n");
    for (const secret of [...tokens, ...codes]) expect(everywhere).not.toContain(secret);
  });

  it("signs in to a plugin's server (<plugin>:<server>) like a configured one", async () => {
    await start({ servers: {} });
    const plugin = path.join(gateway.config.plugins.path, "installed", "sales");
    fs.mkdirSync(path.join(plugin, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "sales", version: "1.0.0" }));
    fs.writeFileSync(path.join(plugin, ".mcp.json"), JSON.stringify({ mcpServers: { crm: { type: "http", url: server.mcpUrl } } }));
    const callback = await server.approve(await startSignIn("sales:crm"));
    expect((await fetch(callback)).status).toBe(200);
    expect(await (await fetch(`${base}/api/mcp/servers/sales%3Acrm/auth`)).json()).toMatchObject({ server: "sales:crm", signed_in: true });
    expect((await agentManager({ "sales:crm": { type: "http", url: server.mcpUrl } }).callTool("sales:crm", "add", { a: 1, b: 1 })).structuredContent).toEqual({ sum: 2 });
  });

  it("DELETE forgets the tokens and revokes them at the authorization server", async () => {
    await start();
    await fetch(await server.approve(await startSignIn("crm")));
    const response = await fetch(`${base}/api/mcp/servers/crm/auth`, { method: "DELETE" });
    expect(await response.json()).toEqual({ server: "crm", forgotten: true, revoked: true });
    expect(server.stats().revocations).toBe(2);
    expect(await (await fetch(`${base}/api/mcp/servers/crm/auth`)).json()).toMatchObject({ signed_in: false });
    expect(await agentManager({ crm: { type: "http", url: server.mcpUrl } }).connect("crm")).toMatchObject({ state: "needs_auth" });
  });

  it("redirects to the configured frontend with the outcome", async () => {
    await start({ configYaml: "mcp:\n  oauth:\n    frontend_url: http://127.0.0.1:5173/settings/mcp\n" });
    const answer = await fetch(await server.approve(await startSignIn("crm")), { redirect: "manual" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("http://127.0.0.1:5173/settings/mcp?mcp_server=crm&mcp_auth=connected");
  });

  it("needs the API key to start or end a sign-in, not for the callback the browser follows", async () => {
    await start({ apiKey: "k".repeat(32) });
    expect((await post("/api/mcp/servers/crm/auth")).status).toBe(401);
    const response = await post("/api/mcp/servers/crm/auth", {}, { "x-api-key": "k".repeat(32) });
    const { authorization_url: url } = (await response.json()) as { authorization_url: string };
    expect((await fetch(await server.approve(url))).status).toBe(200);
    expect((await fetch(`${base}/api/mcp/servers/crm/auth`, { method: "DELETE" })).status).toBe(401);
  });

  it("takes an oauth block in a server entry: client_credentials needs a secret, which comes back masked unless a placeholder", async () => {
    await start();
    const put = (body: unknown): Promise<Response> => fetch(`${base}/api/mcp/servers/svc`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const missing = await put({ type: "http", url: server.mcpUrl, oauth: { grant: "client_credentials", client_id: "svc-1" } });
    expect([missing.status, ((await missing.json()) as { code: string }).code]).toEqual([400, "VALIDATION_FAILED"]);
    const literal = await put({ type: "http", url: server.mcpUrl, oauth: { grant: "client_credentials", client_id: "svc-1", client_secret: "literal-secret-value" } });
    expect(((await literal.json()) as { config: { oauth: unknown } }).config.oauth).toEqual({ grant: "client_credentials", client_id: "svc-1", client_secret: "[redacted]" });
    const placeholder = await put({ type: "http", url: server.mcpUrl, oauth: { grant: "client_credentials", client_id: "svc-1", client_secret: "${SVC_SECRET}" } });
    expect(((await placeholder.json()) as { config: { oauth: unknown } }).config.oauth).toMatchObject({ client_secret: "${SVC_SECRET}" });
  });

  it("answers 409 for a server that takes no sign-in and 404 for an unknown one", async () => {
    await start();
    expect(await (await post("/api/mcp/servers/local/auth")).json()).toMatchObject({ code: "OAUTH_NOT_APPLICABLE" });
    const unknown = await post("/api/mcp/servers/nope/auth");
    expect([unknown.status, ((await unknown.json()) as { code: string }).code]).toEqual([404, "MCP_SERVER_NOT_FOUND"]);
  });
});

describe("hostile callbacks and metadata: a 4xx with a code, nothing stored", () => {
  const expectRefused = async (url: string, status: number, code: string): Promise<void> => {
    const files = tokenFiles();
    const response = await fetch(url, { redirect: "manual" });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([status, code]);
    expect(tokenFiles()).toEqual(files);
  };

  it("a wrong state, a replayed state, a replayed code", async () => {
    await start();
    const first = await startSignIn("crm");
    const second = await startSignIn("crm");
    const callback = new URL(await server.approve(first));
    const forged = new URL(callback);
    forged.searchParams.set("state", "not-a-state-we-made");
    await expectRefused(forged.href, 400, "OAUTH_STATE_INVALID");
    expect((await fetch(callback)).status).toBe(200);
    await expectRefused(callback.href, 400, "OAUTH_STATE_INVALID");
    // The first sign-in's code under the second sign-in's state: the authorization server refuses it.
    const replayed = new URL(callback);
    replayed.searchParams.set("state", new URL(second).searchParams.get("state") as string);
    await expectRefused(replayed.href, 400, "OAUTH_AUTHORIZATION_FAILED");
    expect(server.stats().codeExchanges).toBe(1);
  });

  it("a callback for a server removed meanwhile, and a denied sign-in", async () => {
    await start();
    const callback = await server.approve(await startSignIn("crm"));
    expect((await fetch(`${base}/api/mcp/servers/crm`, { method: "DELETE" })).status).toBe(204);
    await expectRefused(callback, 404, "MCP_SERVER_NOT_FOUND");
    await gateway.close();
    await start();
    await expectRefused(await server.deny(await startSignIn("crm")), 400, "OAUTH_AUTHORIZATION_FAILED");
  });

  it("a return_to on another origin", async () => {
    await start({ configYaml: "mcp:\n  oauth:\n    frontend_url: http://127.0.0.1:5173/settings\n" });
    const response = await post("/api/mcp/servers/crm/auth", { return_to: "https://attacker.example/steal" });
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([400, "OAUTH_REDIRECT_NOT_ALLOWED"]);
    const allowed = await server.approve(await startSignIn("crm", { return_to: "http://127.0.0.1:5173/settings/servers?tab=mcp" }));
    expect((await fetch(allowed, { redirect: "manual" })).headers.get("location")).toBe("http://127.0.0.1:5173/settings/servers?tab=mcp&mcp_server=crm&mcp_auth=connected");
  });

  it("a return_to that is a path of this origin (the console's page) comes back as a relative redirect; paths a browser could read as another origin are refused", async () => {
    await start();
    const approved = await server.approve(await startSignIn("crm", { return_to: "/servers?view=all" }));
    const answer = await fetch(approved, { redirect: "manual" });
    expect([answer.status, answer.headers.get("location")]).toEqual([303, "/servers?view=all&mcp_server=crm&mcp_auth=connected"]);
    for (const hostile of ["//attacker.example/x", "/\\attacker.example", "/\\/attacker.example", "/a/..//attacker.example", "/./servers", "/servers\n", "/ser vers", "/\tattacker", "https:attacker.example", "javascript:alert(1)"]) {
      const response = await post("/api/mcp/servers/crm/auth", { return_to: hostile });
      expect([hostile, response.status, ((await response.json()) as { code: string }).code]).toEqual([hostile, 400, "OAUTH_REDIRECT_NOT_ALLOWED"]);
    }
  });

  it("metadata that points the token endpoint at another host than its issuer", async () => {
    await server.close();
    server = await startOAuthTestServer({ tokenEndpointHost: "localhost" });
    await start();
    const response = await post("/api/mcp/servers/crm/auth");
    expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([422, "OAUTH_METADATA_REJECTED"]);
    expect(tokenFiles()).toEqual([]);
  });
});
