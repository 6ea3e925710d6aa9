// Every route of the agent server's route table (AgentServer.routes, so a route added later is covered
// without editing this test): without credentials it answers 401 (only /healthz is open), and a
// route that takes a thread or run id answers another user's exactly as it answers an id that names
// nothing (status and body, the id aside), so ids cannot be probed.
import crypto from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";
import { testScript } from "./support/agent-fixture.js";

const adminKey = "admin-key-for-the-route-matrix";
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
};

const temp = makeTempDir("tt-agent-matrix-");
let server: AgentServer;
let url: string;
let bobKey: string;
let mine: { thread: string; run: string; checkpoint: string };

beforeAll(async () => {
  writeTree(temp.dir, {
    "config.yaml": ["data_dir: data", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ""].join("\n"),
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
}, 120_000);

afterAll(async () => {
  await server?.close();
  temp.cleanup();
});

/** The route's URL with its parameters filled in (a wildcard gets a plain segment). */
const pathOf = (pattern: string, ids: { thread: string; run: string; checkpoint: string }) =>
  pattern.replace(":thread_id", ids.thread).replace(":run_id", ids.run).replace(":checkpoint_id", ids.checkpoint).replace(":assistant_id", "lead_agent").replace(":cron_id", "c1").replace("*", "c1");

async function call(method: string, path: string, key: string | undefined, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(key ? { "x-api-key": key } : {}), ...(method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }) },
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
});
