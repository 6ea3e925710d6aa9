// Issue 25: one agent server, two users and an administrator, each with the LangGraph SDK's Client and
// their own key (users made with identity's users.create). What one user makes, the other cannot see
// or touch: every such answer is the one a missing resource gets. An administrator reaches anything
// by id, and lists everyone's only with X-Thinktank-Scope: all.
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, needs, startOpenIdProvider, writeTree, type OpenIdProvider } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestProvider } from "../src/request/request-context.js";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";
import { testScript } from "./support/agent-fixture.js";
import { createFreshDatabase, type FreshDatabase } from "./support/fresh-postgres.js";

const adminKey = "admin-key-for-the-ownership-test";
const audience = "https://agent.thinktank.test";
const human = (content: string) => ({ messages: [{ type: "human", content }] });
/** Whom each run was prepared for (RequestInfo.ownerId), by thread. */
const preparedFor = new Map<string, string[]>();
const recorder: RequestProvider = {
  name: "owner-recorder",
  contribute: (request) => {
    preparedFor.set(request.threadId, [...(preparedFor.get(request.threadId) ?? []), request.ownerId]);
    return {};
  },
};

let server: AgentServer;
let url: string;
let alice: { id: string; key: string; client: Client };
let bob: { id: string; key: string; client: Client };
let admin: Client;
let adminAll: Client;

const client = (apiKey: string, headers: Record<string, string> = {}) => new Client({ apiUrl: url, apiKey, defaultHeaders: headers, callerOptions: { maxRetries: 0 } });

/** A raw request as `key`: status and JSON body (the SDK shows only the text of an error). */
async function raw(key: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(key ? { "x-api-key": key } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The SDK call fails with HTTP `status`. */
const failsWith = async (call: Promise<unknown> | (() => Promise<unknown>), status: number) =>
  expect(typeof call === "function" ? call() : call).rejects.toMatchObject({ status });

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _part of stream);
}

const backends = [
  { name: "sqlite", options: {} },
  // A database of its own: the administrator's "everyone" is exactly this suite's.
  { name: "postgres", options: needs("postgres") },
] as const;

for (const backend of backends) describe(`ownership on the agent server (${backend.name}), through the LangGraph SDK as two users and an administrator`, { ...backend.options, timeout: 120_000 }, () => {
  const temp = makeTempDir("tt-agent-owners-");
  let database: FreshDatabase | undefined;
  let provider: OpenIdProvider;

  beforeAll(async () => {
    database = backend.name === "postgres" ? await createFreshDatabase("tt_owners") : undefined;
    provider = await startOpenIdProvider();
    const threads = database ? ["agent:", "  threads:", "    backend: postgres", "    postgres_url_env: TEST_PG"] : [];
    const jwt = ["auth:", "  jwt:", `    issuer: ${provider.issuer}`, `    audience: ${audience}`];
    writeTree(temp.dir, {
      "config.yaml": ["data_dir: data", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ...threads, ...jwt, ""].join("\n"),
      "script.yaml": testScript,
      "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    });
    const env = { THINKTANK_API_KEY: adminKey, ...(database ? { TEST_PG: database.url } : {}) };
    server = await buildAgentServer(loadConfig({ cwd: temp.dir, env }), { logger: false, extraProviders: [recorder] });
    const port = await freePort();
    await server.app.listen({ host: "127.0.0.1", port });
    url = `http://127.0.0.1:${port}`;
    const made = await Promise.all(["alice", "bob"].map((name) => server.identity.users.create({ name, role: "user" })));
    [alice, bob] = made.map(({ user, apiKey }) => ({ id: user.id, key: apiKey, client: client(apiKey) })) as [typeof alice, typeof bob];
    admin = client(adminKey);
    adminAll = client(adminKey, { "X-Thinktank-Scope": "all" });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await provider?.stop();
    await database?.drop();
    temp.cleanup();
  });

  // Alice's resources, made in the first test and probed by the others.
  let thread: string;
  let run: string;
  let interrupted: string;
  let busy: string;
  let pending: string;

  it("says who calls (GET /me), and needs a caller on every route but /healthz, /mcp included", async () => {
    expect((await raw(alice.key, "GET", "/me")).body).toEqual({ id: alice.id, name: "alice", role: "user", auth: "key" });
    expect((await raw(adminKey, "GET", "/me")).body).toEqual({ id: "admin", name: expect.any(String), role: "admin", auth: "key" });
    expect(await raw(undefined, "GET", "/me")).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
    expect(await raw("tt_u_nokey_wrong", "POST", "/threads/search", {})).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
    expect((await raw(undefined, "GET", "/healthz")).status).toBe(200);
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
    const mcp = (key: string | undefined, message: object, session?: string) =>
      fetch(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(key ? { "x-api-key": key } : {}), ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-03-26" } : {}) },
        body: JSON.stringify(message),
      });
    const anonymous = await mcp(undefined, initialize);
    expect([anonymous.status, ((await anonymous.json()) as { code: string }).code]).toEqual([401, "UNAUTHENTICATED"]);
    const signedIn = await mcp(bob.key, initialize);
    expect(signedIn.status).toBe(200);
    await signedIn.body?.cancel();
    // Bob's MCP session is his: Alice naming its id is told there is no such session.
    const session = signedIn.headers.get("mcp-session-id") as string;
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const hers = await mcp(alice.key, list, session);
    expect(hers.status).toBe(404);
    await hers.body?.cancel();
    const his = await mcp(bob.key, list, session);
    expect(his.status).toBe(200);
    expect(await his.text()).toContain("execute_code");
  });

  it("gives what a user makes to them: threads, runs (executed for them) and store items", async () => {
    thread = (await alice.client.threads.create({ metadata: { topic: "secret plans" } })).thread_id;
    const done = await alice.client.runs.create(thread, "lead_agent", { input: human("hello from alice") });
    run = done.run_id;
    await alice.client.runs.join(thread, run);
    expect(await alice.client.threads.get(thread)).toMatchObject({ owner_id: alice.id });
    expect(await alice.client.runs.get(thread, run)).toMatchObject({ owner_id: alice.id, status: "success" });
    expect(preparedFor.get(thread)).toEqual([alice.id]);

    interrupted = (await alice.client.threads.create()).thread_id;
    await alice.client.runs.wait(interrupted, "lead_agent", { input: human("ask me") });
    expect((await alice.client.threads.get(interrupted)).status).toBe("interrupted");
    busy = (await alice.client.threads.create()).thread_id;
    pending = (await alice.client.runs.create(busy, "lead_agent", { input: human("later"), afterSeconds: 600 })).run_id;

    await alice.client.store.putItem(["memories"], "favourite", { colour: "teal" });
    expect(await alice.client.store.getItem(["memories"], "favourite")).toMatchObject({ namespace: ["memories"], value: { colour: "teal" } });
    expect((await alice.client.threads.search()).map((t) => t.thread_id).sort()).toEqual([thread, interrupted, busy].sort());
  });

  it("hides a user's threads from another: get, search, count, state, history, stream answer as for a missing thread", async () => {
    const missing = "no-such-thread";
    const notFound = async (path: string, method = "GET", body?: unknown) => {
      const mine = await raw(bob.key, method, path.replace("{id}", thread), body);
      const none = await raw(bob.key, method, path.replace("{id}", missing), body);
      expect(mine.status).toBe(404);
      // Byte for byte what a missing thread gets, its id aside: nothing says the thread exists.
      expect(JSON.stringify(mine.body).replaceAll(thread, "ID")).toBe(JSON.stringify(none.body).replaceAll(missing, "ID"));
    };
    await notFound("/threads/{id}");
    await notFound("/threads/{id}/state");
    await notFound("/threads/{id}/history");
    await notFound("/threads/{id}/history", "POST", { limit: 5 });
    await notFound("/threads/{id}/state/checkpoint", "POST", { checkpoint: {} });
    await notFound("/threads/{id}/runs");
    await notFound("/threads/{id}/stream");
    await notFound("/threads/{id}", "PATCH", { metadata: { topic: "mine now" } });
    await notFound("/threads/{id}/state", "POST", { values: { messages: [] } });
    await notFound("/threads/{id}/copy", "POST", {});
    await notFound("/threads/{id}", "DELETE");

    const b = bob.client;
    await failsWith(b.threads.get(thread), 404);
    await failsWith(b.threads.getState(thread), 404);
    await failsWith(b.threads.getHistory(thread), 404);
    await failsWith(b.threads.copy(thread), 404);
    await failsWith(b.threads.update(thread, { metadata: { x: 1 } }), 404);
    await failsWith(b.threads.updateState(thread, { values: { messages: [] } }), 404);
    await failsWith(b.threads.delete(thread), 404);
    await failsWith(() => drain(b.threads.joinStream(thread)), 404);
    expect(await b.threads.search()).toEqual([]);
    expect(await b.threads.search({ ids: [thread, interrupted] })).toEqual([]);
    expect(await b.threads.search({ metadata: { topic: "secret plans" } })).toEqual([]);
    expect(await b.threads.count()).toBe(0);
    expect(await b.threads.prune([thread, busy])).toEqual({ pruned_count: 0 });
    // Still Alice's, unchanged.
    expect(await alice.client.threads.get(thread)).toMatchObject({ metadata: { topic: "secret plans" }, owner_id: alice.id });
    expect(await alice.client.threads.count()).toBe(3);
  });

  it("lets no user reach another's runs: get, list, join, streams, cancel, delete, resume, new runs on the thread", async () => {
    const b = bob.client;
    await failsWith(b.runs.get(thread, run), 404);
    await failsWith(b.runs.list(thread), 404);
    await failsWith(b.runs.join(thread, run), 404);
    await failsWith(() => drain(b.runs.joinStream(thread, run)), 404);
    await failsWith(() => drain(b.runs.joinStream(null, run)), 404);
    await failsWith(b.runs.delete(thread, run), 404);
    await failsWith(b.runs.cancel(busy, pending, true), 404);
    await failsWith(b.runs.cancelMany({ threadId: busy }), 404);
    await failsWith(b.runs.cancelMany({ threadId: busy, runIds: [pending] }), 404);
    // Resume Alice's interrupted thread, or run on her threads in any form.
    await failsWith(() => drain(b.runs.stream(interrupted, "lead_agent", { command: { resume: "red" } })), 404);
    await failsWith(b.runs.wait(thread, "lead_agent", { input: human("hi") }), 404);
    await failsWith(b.runs.create(thread, "lead_agent", { input: human("hi") }), 404);
    // Her thread's id is taken: it can be neither created nor run with if_not_exists.
    await failsWith(b.runs.create(thread, "lead_agent", { input: human("hi"), ifNotExists: "create" }), 409);
    await failsWith(b.threads.create({ threadId: thread }), 409);
    await failsWith(b.threads.create({ threadId: thread, ifExists: "do_nothing" }), 409);
    // Run ids of hers name nothing for him, on any path.
    expect(await raw(bob.key, "GET", `/threads/${thread}/runs/${run}`)).toMatchObject({ status: 404, body: { code: "RUN_NOT_FOUND" } });
    expect(await raw(bob.key, "GET", `/runs/${run}/stream`)).toMatchObject({ status: 404, body: { code: "RUN_NOT_FOUND" } });

    expect((await alice.client.runs.get(busy, pending)).status).toBe("pending");
    expect((await alice.client.threads.get(interrupted)).status).toBe("interrupted");
    expect((await alice.client.runs.list(thread)).map((r) => r.run_id)).toEqual([run]);
    // His own stateless run is his alone.
    const values = await b.runs.wait(null, "lead_agent", { input: human("bob's own") });
    expect(JSON.stringify(values)).toContain("bob's own");
    expect(await alice.client.threads.search()).toHaveLength(3);
  });

  it("keeps each user's store items under their own namespace", async () => {
    const b = bob.client.store;
    expect(await b.getItem(["memories"], "favourite")).toBeNull();
    expect(await b.getItem([alice.id, "memories"], "favourite")).toBeNull();
    expect((await b.searchItems([])).items).toEqual([]);
    expect((await b.searchItems([], { query: "teal" })).items).toEqual([]);
    expect((await b.listNamespaces()).namespaces).toEqual([]);
    await b.putItem(["memories"], "favourite", { colour: "red" });
    await b.deleteItem(["memories"], "favourite");
    await b.deleteItem(["memories"], "favourite");
    expect(await alice.client.store.getItem(["memories"], "favourite")).toMatchObject({ value: { colour: "teal" } });
    await b.putItem(["memories"], "favourite", { colour: "red" });
    expect(await b.getItem(["memories"], "favourite")).toMatchObject({ namespace: ["memories"], value: { colour: "red" } });
    expect((await alice.client.store.searchItems(["memories"])).items.map((item) => item.value)).toEqual([{ colour: "teal" }]);
  });

  it("shows an administrator their own lists, everyone's with X-Thinktank-Scope: all, and any resource by id", async () => {
    const own = (await admin.threads.create()).thread_id;
    expect((await admin.threads.search()).map((t) => t.thread_id)).toEqual([own]);
    expect(await admin.threads.count()).toBe(1);
    const everyone = (await adminAll.threads.search({ limit: 100 })).map((t) => t.thread_id);
    expect(everyone).toEqual(expect.arrayContaining([own, thread, interrupted, busy]));
    expect(await adminAll.threads.count()).toBe(everyone.length);
    // The header counts only from an administrator.
    expect(await client(bob.key, { "X-Thinktank-Scope": "all" }).threads.search()).toEqual([]);

    expect(await admin.threads.get(thread)).toMatchObject({ owner_id: alice.id });
    expect((await admin.runs.list(thread)).map((r) => r.run_id)).toEqual([run]);
    expect((await admin.threads.getState(thread)).values).toMatchObject({ messages: expect.any(Array) });
    // A run an administrator starts on her thread executes for the administrator (their sign-ins, not hers).
    const adminRun = await admin.runs.create(thread, "lead_agent", { input: human("from the operator") });
    await admin.runs.join(thread, adminRun.run_id);
    expect(await alice.client.runs.get(thread, adminRun.run_id)).toMatchObject({ owner_id: "admin" });
    expect(preparedFor.get(thread)).toEqual([alice.id, "admin"]);
    await admin.runs.cancel(busy, pending, true);
    expect((await alice.client.runs.get(busy, pending)).status).toBe("interrupted");

    expect((await admin.store.listNamespaces()).namespaces).toEqual([]);
    expect((await adminAll.store.listNamespaces()).namespaces).toEqual(expect.arrayContaining([[alice.id, "memories"], [bob.id, "memories"]]));
    expect(await adminAll.store.getItem([alice.id, "memories"], "favourite")).toMatchObject({ value: { colour: "teal" } });
  });

  it("takes the frontend's JWT users as users of their own, through the SDK unchanged", async () => {
    const token = await provider.token({ subject: "dana", audience, name: "Dana" });
    const dana = new Client({ apiUrl: url, defaultHeaders: { authorization: `Bearer ${token}` }, callerOptions: { maxRetries: 0 } });
    const me = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(await me.json()).toEqual({ id: "jwt:dana", name: "Dana", role: "user", auth: "jwt" });
    const own = (await dana.threads.create()).thread_id;
    await dana.runs.wait(own, "lead_agent", { input: human("from dana") });
    expect((await dana.threads.search()).map((t) => t.thread_id)).toEqual([own]);
    await dana.store.putItem(["memories"], "favourite", { colour: "green" });
    expect(await dana.store.getItem(["memories"], "favourite")).toMatchObject({ value: { colour: "green" } });
    await failsWith(dana.threads.get(thread), 404);
    await failsWith(alice.client.threads.get(own), 404);
    expect(await alice.client.store.getItem(["memories"], "favourite")).toMatchObject({ value: { colour: "teal" } });
    expect((await adminAll.store.listNamespaces()).namespaces).toContainEqual(["jwt:dana", "memories"]);
    // A token for another audience is refused, as wrong credentials always are.
    const elsewhere = await provider.token({ subject: "dana", audience: "https://other.example", name: "Dana" });
    const refused = await fetch(`${url}/threads/search`, { method: "POST", headers: { authorization: `Bearer ${elsewhere}`, "content-type": "application/json" }, body: "{}" });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([401, "UNAUTHENTICATED"]);
  });

  it("stops a removed user's key at once", async () => {
    const { user, apiKey } = await server.identity.users.create({ name: "carol", role: "user" });
    expect((await raw(apiKey, "GET", "/me")).status).toBe(200);
    await server.identity.users.remove(user.id);
    expect(await raw(apiKey, "GET", "/me")).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
  });
});
