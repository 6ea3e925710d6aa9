import fs from "node:fs";
import path from "node:path";
import { userCodeApiDir } from "@thinktank/core";
import { createOAuthTokenStore, McpManager } from "@thinktank/mcp";
import type { McpServerEntry } from "@thinktank/mcp";
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

// MCP per user through the gateway, over real HTTP: two users sign in to one OAuth-protected
// server (a real authorization server whose MCP server answers whoami with the account that
// approved the token), the agent's manager over the same token store calls as each of them; a
// user's own servers; stdio refused to users.
const adminKey = "mcp-per-user-admin-key-0000000001";
let server: OAuthTestServer;
let gateway: TestGateway;
let base: string;
let alice: { key: string; id: string };
let bob: { key: string; id: string };
const managers: McpManager[] = [];

beforeEach(async () => {
  server = await startOAuthTestServer();
  gateway = await createTestGateway({ apiKey: adminKey, extensions: { mcpServers: { crm: { type: "http", url: server.mcpUrl } }, skills: {}, plugins: {}, tools: {} } });
  base = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
  alice = await newUser("alice");
  bob = await newUser("bob");
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await gateway?.close();
  await server.close();
});

async function newUser(name: string): Promise<{ key: string; id: string }> {
  const created = await call("POST", "/api/users", adminKey, { name, role: "user" });
  expect(created.status).toBe(201);
  return { key: created.body.api_key as string, id: created.body.id as string };
}

async function call(method: string, url: string, key: string | undefined, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { ...(key ? { "x-api-key": key } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** `key`'s holder signs in to `name` as `account` at the authorization server; the browser's callback carries no credentials. */
async function signIn(name: string, key: string, account: string): Promise<void> {
  const started = await call("POST", `/api/mcp/servers/${encodeURIComponent(name)}/auth`, key, {});
  expect(started.status).toBe(200);
  const callback = await server.approve(started.body.authorization_url as string, { account });
  const page = await fetch(callback.replace(/^http:\/\/[^/]+/, base), { headers: { accept: "text/html" } });
  expect(page.status).toBe(200);
}

function agentManager(entries: Record<string, McpServerEntry>): McpManager {
  const manager = new McpManager({ mcp: { ...gateway.config.mcp, retries: 0 }, env: {}, oauthStore: createOAuthTokenStore(gateway.config) }, entries);
  managers.push(manager);
  return manager;
}

async function account(manager: McpManager, server: string, user: string): Promise<unknown> {
  const result = await manager.callTool(server, "whoami", {}, { user });
  return (result.structuredContent as { account?: string }).account;
}

describe("MCP sign-ins per user", () => {
  it("two users sign in to one server; each call carries the caller's own token; one signs out and only they need sign-in", async () => {
    await signIn("crm", alice.key, "alice@crm");
    expect((await call("GET", "/api/mcp/servers/crm/auth", alice.key)).body).toMatchObject({ signed_in: true });
    // Bob has not signed in: Alice's sign-in is not his.
    expect((await call("GET", "/api/mcp/servers/crm/auth", bob.key)).body).toMatchObject({ signed_in: false });
    // Once the server is known to sign in (the operator's session found it asks), a user who has not signed in is listed needs_auth.
    const crmFor = async (key: string) => ((await call("GET", "/api/mcp/servers", key)).body.servers as { name: string; status?: string; auth?: { signed_in: boolean } }[]).find((entry) => entry.name === "crm");
    expect((await crmFor(bob.key))?.status).toBe("unknown"); // no agent server runs in this test
    const operatorSide = agentManager({ crm: { type: "http", url: server.mcpUrl } });
    expect((await operatorSide.connect("crm")).state).toBe("needs_auth");
    await operatorSide.settled();
    await expect.poll(async () => (await crmFor(bob.key))?.status).toBe("needs_auth");
    expect(await crmFor(alice.key)).toMatchObject({ auth: { signed_in: true } });
    await signIn("crm", bob.key, "bob@crm");

    const agent = agentManager({ crm: { type: "http", url: server.mcpUrl } });
    expect(await account(agent, "crm", alice.id)).toBe("alice@crm");
    expect(await account(agent, "crm", bob.id)).toBe("bob@crm");
    // The operator never signed in.
    expect((await call("GET", "/api/mcp/servers/crm/auth", adminKey)).body).toMatchObject({ signed_in: false });

    const out = await call("DELETE", "/api/mcp/servers/crm/auth", alice.key);
    expect(out.body).toMatchObject({ forgotten: true, revoked: true });
    await expect(agent.callTool("crm", "whoami", {}, { user: alice.id })).rejects.toMatchObject({ code: "MCP_NEEDS_AUTH" });
    expect(await account(agent, "crm", bob.id)).toBe("bob@crm");
    // The listing shows each caller their own state: Alice needs sign-in (the agent noted it), Bob is signed in.
    const crmOf = async (key: string) => ((await call("GET", "/api/mcp/servers", key)).body.servers as { name: string; status?: string; auth?: { signed_in: boolean } }[]).find((entry) => entry.name === "crm");
    await expect.poll(async () => (await crmOf(alice.key))?.status).toBe("needs_auth");
    expect(await crmOf(bob.key)).toMatchObject({ auth: { signed_in: true } });
    expect((await crmOf(bob.key))?.status).toBe("unknown");

    // A deleted user's sign-ins go with them; the others' stay.
    expect((await call("DELETE", `/api/users/${bob.id}`, adminKey)).status).toBe(204);
    const store = createOAuthTokenStore(gateway.config);
    expect(store.forUser(bob.id).get("crm")).toBeUndefined();
    expect(fs.existsSync(store.forUser(bob.id).fileOf("crm"))).toBe(false);
    expect(store.forUser(alice.id).get("crm")).toBeDefined(); // her needs_auth note
  });
});

describe("a user's own MCP servers", () => {
  it("are written under their own section, listed to them alone as ~<name>, and signed in to as theirs", async () => {
    const put = await call("PUT", "/api/mcp/servers/notes", alice.key, { type: "http", url: server.mcpUrl });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ name: "~notes", source: "user", transport: "http" });
    const document = JSON.parse(fs.readFileSync(gateway.file, "utf8")) as { mcpServers: Record<string, unknown>; users: Record<string, { mcpServers: Record<string, unknown> }> };
    expect(Object.keys(document.mcpServers)).toEqual(["crm"]);
    expect(document.users[alice.id]?.mcpServers).toEqual({ notes: { type: "http", url: server.mcpUrl } });

    const names = async (key: string | undefined) => ((await call("GET", "/api/mcp/servers", key)).body.servers as { name: string }[]).map((entry) => entry.name);
    expect(await names(alice.key)).toEqual(["crm", "~notes"]);
    expect(await names(bob.key)).toEqual(["crm"]);
    expect(await names(adminKey)).toEqual(["crm"]);
    expect(await names(undefined)).toEqual(["crm"]);
    expect((await call("GET", "/api/mcp/servers/~notes", alice.key)).status).toBe(200);
    expect((await call("GET", "/api/mcp/servers/~notes", bob.key)).status).toBe(404);
    expect((await call("POST", "/api/mcp/servers/~notes/auth", bob.key, {})).status).toBe(404);
    expect((await call("DELETE", "/api/mcp/servers/~notes", bob.key)).status).toBe(404);

    await signIn("~notes", alice.key, "alice@notes");
    const agent = agentManager({ crm: { type: "http", url: server.mcpUrl } });
    agent.syncUser(alice.id, { "~notes": { type: "http", url: server.mcpUrl } });
    expect(await account(agent, "~notes", alice.id)).toBe("alice@notes");

    // A user's PUT and DELETE never touch the shared servers.
    expect((await call("DELETE", "/api/mcp/servers/crm", alice.key)).status).toBe(404);
    expect((await call("PUT", "/api/mcp/servers/crm", alice.key, { type: "http", url: "http://127.0.0.1:1/mcp" })).body).toMatchObject({ name: "~crm", source: "user" });
    expect((JSON.parse(fs.readFileSync(gateway.file, "utf8")) as { mcpServers: Record<string, { url: string }> }).mcpServers.crm?.url).toBe(server.mcpUrl);
    expect((await call("DELETE", "/api/mcp/servers/~notes", alice.key)).status).toBe(204);
    expect(await names(alice.key)).toEqual(["crm", "~crm"]);
    // An administrator writes the shared section; a ~ name is a user's.
    expect((await call("PUT", "/api/mcp/servers/~x", adminKey, { type: "http", url: server.mcpUrl })).status).toBe(400);
  });

  it("a user may not add a stdio server (403 FORBIDDEN), in their section or any other", async () => {
    for (const body of [{ command: "sh", args: ["-c", "id"] }, { type: "stdio", command: "sh" }]) {
      const refused = await call("PUT", "/api/mcp/servers/shell", alice.key, body);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "FORBIDDEN" });
    }
    const document = JSON.parse(fs.readFileSync(gateway.file, "utf8")) as { users?: unknown; mcpServers: Record<string, unknown> };
    expect(document.users).toBeUndefined();
    expect(Object.keys(document.mcpServers)).toEqual(["crm"]);

    // One written into her section by hand is never started for her: she sees it denied, nobody else sees it.
    await gateway.deps.store.update((draft) => {
      (draft as { users?: unknown }).users = { [alice.id]: { mcpServers: { shell: { command: "sh", args: ["-c", "id"] } } } };
    });
    try {
      expect((await call("GET", "/api/mcp/servers/~shell", alice.key)).body).toMatchObject({ name: "~shell", source: "user", status: "denied", reason: expect.stringContaining("the agent never starts it") });
      expect((await call("GET", "/api/mcp/servers/~shell", bob.key)).status).toBe(404);
    } finally {
      await gateway.deps.store.update((draft) => {
        delete (draft as { users?: unknown }).users;
      });
    }
  });

  it("go with their user: a deleted user's whole entry in extensions_config.json is removed, the others' stay", async () => {
    const carol = await newUser("carol");
    expect((await call("PUT", "/api/mcp/servers/mine", carol.key, { type: "http", url: server.mcpUrl })).status).toBe(201);
    const users = () => (JSON.parse(fs.readFileSync(gateway.file, "utf8")) as { users?: Record<string, unknown> }).users ?? {};
    expect(Object.keys(users())).toContain(carol.id);
    // The wrappers code mode generated for her own servers (as the agent writes them) go too.
    const wrappers = userCodeApiDir(gateway.config.code_execution.code_api_dir, carol.id);
    fs.mkdirSync(path.join(wrappers, "servers", "mine"), { recursive: true });
    expect((await call("DELETE", `/api/users/${carol.id}`, adminKey)).status).toBe(204);
    expect(Object.keys(users())).not.toContain(carol.id);
    expect(fs.existsSync(wrappers)).toBe(false);
    expect((await call("GET", "/api/mcp/servers/~mine", carol.key)).status).toBe(401);
  });
});
