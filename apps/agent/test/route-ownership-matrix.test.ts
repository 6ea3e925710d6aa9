// Every route of the agent server's route table (AgentServer.routes, so a route added later is covered
// without editing this test): without credentials it answers 401 (only /healthz is open); with each
// kind of credential (user keys, the operator's key, a revoked or wrong key, JWTs from a real OpenID
// provider, good and hostile) it refuses or lets through as the gateway's matrix does; and a
// route that takes a thread or run id answers another user's exactly as it answers an id that names
// nothing (status and body, the id aside), so ids cannot be probed.
import crypto from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { freePort, jwtCredentials, makeTempDir, startOpenIdProvider, writeTree, type OpenIdProvider, type TestCredential } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";
import { testScript } from "./support/agent-fixture.js";

const adminKey = "admin-key-for-the-route-matrix";
const audience = "https://thinktank-agent.test";
const human = { messages: [{ type: "human", content: "hello" }] };
/** A body each route accepts (else `{}`): the requests must reach the ownership check, not stop at validation. */
const bodies: Record<string, unknown> = {
  "POST /threads/:thread_id/runs": { assistant_id: "lead_agent", input: human },
  "POST /threads/:thread_id/runs/stream": { assistant_id: "lead_agent", input: human },
  "POST /threads/:thread_id/runs/wait": { assistant_id: "lead_agent", input: human },
  "POST /threads/:thread_id/state": { values: { messages: [] } },
  "PATCH /threads/:thread_id": { metadata: { taken: true } },
  "POST /threads/:thread_id/history": { limit: 1 },
  "POST /threads/:thread_id/state/checkpoint": { checkpoint: {} },
  "POST /threads/:thread_id/runs/crons": { assistant_id: "lead_agent", schedule: "0 8 * * *" },
};

const temp = makeTempDir("tt-agent-matrix-");
let server: AgentServer;
let url: string;
let bobKey: string;
let provider: OpenIdProvider;
const credentials: TestCredential[] = [];
let mine: { thread: string; run: string; checkpoint: string };

beforeAll(async () => {
  provider = await startOpenIdProvider();
  writeTree(temp.dir, {
    "config.yaml": ["data_dir: data", "auth:", "  jwt:", `    issuer: ${provider.issuer}`, `    audience: ${audience}`, "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ""].join("\n"),
    "script.yaml": testScript,
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
  });
  server = await buildAgentServer(loadConfig({ cwd: temp.dir, env: { THINKTANK_API_KEY: adminKey } }), { logger: false });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  url = `http://127.0.0.1:${port}`;
  const [alice, bob] = await Promise.all(["alice", "bob"].map((name) => server.identity.users.create({ name, role: "user" })));
  bobKey = bob!.apiKey;
  const client = new Client({ apiUrl: url, apiKey: alice!.apiKey, callerOptions: { maxRetries: 0 } });
  const thread = (await client.threads.create()).thread_id;
  const run = await client.runs.create(thread, "lead_agent", { input: human });
  await client.runs.join(thread, run.run_id);
  const checkpoint = (await client.threads.getState(thread)).checkpoint.checkpoint_id as string;
  mine = { thread, run: run.run_id, checkpoint };
  const revoked = await server.identity.users.create({ name: "revoked", role: "user" });
  await server.identity.users.removeKey(revoked.user.id, revoked.user.keys[0]?.id as string);
  credentials.push(
    { name: "no credentials", headers: {}, holder: "anonymous" },
    { name: "alice's key", headers: { "x-api-key": alice!.apiKey }, holder: "user" },
    { name: "bob's key (Bearer)", headers: { authorization: `Bearer ${bob!.apiKey}` }, holder: "user" },
    { name: "the operator's key", headers: { "x-api-key": adminKey }, holder: "admin" },
    ...(await jwtCredentials(provider, { audience, subject: "alice" })),
    { name: "a revoked key", headers: { "x-api-key": revoked.apiKey }, holder: "invalid" },
    { name: "a wrong key", headers: { "x-api-key": `${adminKey}x` }, holder: "invalid" },
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  await provider?.stop();
  temp.cleanup();
});

/** The route's URL with its parameters filled in (a wildcard gets a plain segment). */
const pathOf = (pattern: string, ids: { thread: string; run: string; checkpoint: string }) =>
  pattern.replace(":thread_id", ids.thread).replace(":run_id", ids.run).replace(":checkpoint_id", ids.checkpoint).replace(":assistant_id", "lead_agent").replace(":cron_id", "c1").replace("*", "c1");

async function call(method: string, path: string, key: string | Record<string, string> | undefined, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(typeof key === "string" ? { "x-api-key": key } : key), ...(method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }) },
    ...(method === "GET" || method === "DELETE" ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

describe("the agent server's route table: callers and owners on every route", { timeout: 120_000 }, () => {
  it("covers the LangGraph API's routes", () => {
    const table = server.routes.map((route) => `${route.method} ${route.url}`);
    for (const expected of ["GET /me", "GET /threads/:thread_id", "GET /runs/:run_id/stream", "PUT /store/items", "POST /mcp", "GET /healthz"]) expect(table).toContain(expected);
  });

  it("needs a caller on every route but /healthz", async () => {
    const missing = { thread: "no-such-thread", run: crypto.randomUUID(), checkpoint: crypto.randomUUID() };
    for (const route of server.routes) {
      const answer = await call(route.method, pathOf(route.url, missing), undefined, bodies[`${route.method} ${route.url}`] ?? {});
      if (route.url === "/healthz") expect(answer.status, `${route.method} ${route.url}`).toBe(200);
      else expect([`${route.method} ${route.url}`, answer.status, JSON.parse(answer.text).code]).toEqual([`${route.method} ${route.url}`, 401, "UNAUTHENTICATED"]);
    }
  });

  it("answers another user's thread or run on every route that takes one as it answers an id that names nothing", async () => {
    const owned = server.routes.filter((route) => route.url.includes(":thread_id") || route.url.includes(":run_id"));
    expect(owned.length).toBeGreaterThan(20);
    for (const route of owned) {
      const missing = { thread: `missing-${crypto.randomUUID()}`, run: crypto.randomUUID(), checkpoint: mine.checkpoint };
      const body = (ids: typeof mine) => JSON.parse(JSON.stringify(bodies[`${route.method} ${route.url}`] ?? {}).replaceAll("THREAD", ids.thread));
      const hers = await call(route.method, pathOf(route.url, mine), bobKey, body(mine));
      const none = await call(route.method, pathOf(route.url, missing), bobKey, body(missing));
      const label = `${route.method} ${route.url}`;
      expect([label, hers.status]).toEqual([label, none.status]);
      expect(hers.status, label).toBeGreaterThanOrEqual(400);
      expect([label, hers.text.replaceAll(mine.thread, "ID").replaceAll(mine.run, "RUN")]).toEqual([label, none.text.replaceAll(missing.thread, "ID").replaceAll(missing.run, "RUN")]);
    }
    // Nothing of hers changed.
    const alice = new Client({ apiUrl: url, apiKey: adminKey, callerOptions: { maxRetries: 0 } });
    expect(await alice.threads.get(mine.thread)).toMatchObject({ metadata: { graph_id: "lead_agent" }, status: "idle" });
    expect((await alice.threads.get(mine.thread)).metadata).not.toHaveProperty("taken");
    expect((await alice.runs.list(mine.thread)).map((run) => run.run_id)).toEqual([mine.run]);
  });

  it("answers every route with every kind of credential as the caller it names: refused ones 401, good ones reach the route", async () => {
    const missing = { thread: "no-such-thread", run: crypto.randomUUID(), checkpoint: crypto.randomUUID() };
    const wrong: string[] = [];
    // There are no administrator-only routes on the agent server: a route that is 403 is 403 to every good credential (the one assistant's changes).
    const forbidden = new Map<string, string[]>();
    for (const route of server.routes) {
      const label = `${route.method} ${route.url}`;
      if (route.url === "/mcp") continue; // the MCP endpoint answers per session; its caller check is covered in users-ownership.test.ts
      for (const credential of credentials) {
        const answer = await call(route.method, pathOf(route.url, missing), credential.headers, bodies[label] ?? {});
        const code = answer.text.startsWith("{") ? (JSON.parse(answer.text) as { code?: string }).code : undefined;
        const open = route.url === "/healthz";
        if (credential.holder === "invalid" || (credential.holder === "anonymous" && !open)) {
          if (!(answer.status === 401 && code === "UNAUTHENTICATED") && !(open && answer.status === 200)) wrong.push(`${label} with ${credential.name}: expected 401, got ${answer.status} ${code ?? ""}`);
        } else if (answer.status === 401) {
          wrong.push(`${label} with ${credential.name}: refused (401 ${code ?? ""})`);
        } else if (answer.status === 403) {
          forbidden.set(label, [...(forbidden.get(label) ?? []), credential.name]);
        }
      }
    }
    expect(wrong).toEqual([]);
    const good = credentials.filter((credential) => credential.holder === "user" || credential.holder === "admin").map((credential) => credential.name);
    for (const [label, names] of forbidden) expect([label, names]).toEqual([label, good]);
  });
});
