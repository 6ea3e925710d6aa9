import crypto from "node:crypto";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAgentStore, type AgentStore } from "../src/persistence/open-agent-store.js";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";

/**
 * The Postgres backend, run only when THINKTANK_TEST_POSTGRES_URL names a database the test may
 * write to. CI starts one with .ci/start-postgres; locally: THINKTANK_TEST_POSTGRES_URL=$(.ci/start-postgres) npx vitest run.
 */
const url = process.env.THINKTANK_TEST_POSTGRES_URL;

describe("Postgres threads backend", needs("postgres"), () => {
  const temp = makeTempDir("tt-pg-");
  let store: AgentStore;
  let server: AgentServer;
  const config = () => {
    writeTree(temp.dir, {
      "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
      "config.yaml": "data_dir: data\nagent:\n  threads:\n    backend: postgres\n    postgres_url_env: TEST_PG\nmodels:\n  providers:\n    s:\n      provider: scripted\n",
    });
    return loadConfig({ cwd: temp.dir, env: { TEST_PG: url } });
  };

  beforeAll(async () => {
    store = await openAgentStore(config());
    server = await buildAgentServer(config(), { logger: false, store });
  });
  afterAll(async () => {
    await server?.close();
    temp.cleanup();
  });

  it("keeps thread and run records, filters by metadata and closes stale runs", async () => {
    const owner = crypto.randomUUID();
    const now = new Date().toISOString();
    const base = { created_at: now, updated_at: now, state_updated_at: now, status: "idle" as const, values: null, interrupts: {}, error: null, owner_id: "admin" };
    await store.metadata.createThread({ ...base, thread_id: `${owner}-a`, metadata: { owner, kind: "x" } });
    await store.metadata.createThread({ ...base, thread_id: `${owner}-b`, metadata: { owner }, values: { done: true } });
    const search = { limit: 10, offset: 0, sort_by: "thread_id" as const, sort_order: "asc" as const };
    expect((await store.metadata.searchThreads({ ...search, metadata: { owner } })).map((t) => t.thread_id)).toEqual([`${owner}-a`, `${owner}-b`]);
    expect((await store.metadata.searchThreads({ ...search, metadata: { owner, kind: "x" } })).length).toBe(1);
    expect((await store.metadata.searchThreads({ ...search, values: { done: true }, metadata: { owner } }))[0]?.thread_id).toBe(`${owner}-b`);
    expect(await store.metadata.countThreads({ metadata: { owner } })).toBe(2);
    const updated = await store.metadata.updateThread(`${owner}-a`, { status: "interrupted", interrupts: { t: [{ value: 1 }] } }, now);
    expect(updated?.interrupts).toEqual({ t: [{ value: 1 }] });
    await store.metadata.createRun({ run_id: `${owner}-r`, thread_id: `${owner}-a`, assistant_id: "x", created_at: now, updated_at: "2000-01-01T00:00:00.000Z", status: "running", metadata: {}, kwargs: { a: 1 }, multitask_strategy: "reject", owner_id: "admin" });
    expect((await store.metadata.listRuns(`${owner}-a`, { limit: 5, offset: 0 }))[0]?.kwargs).toEqual({ a: 1 });
    expect(await store.metadata.closeStaleRuns(now)).toBeGreaterThanOrEqual(1);
    expect((await store.metadata.getRun(`${owner}-r`))?.status).toBe("error");
    expect(await store.metadata.deleteThread(`${owner}-a`)).toBe(true);
    expect(await store.metadata.getRun(`${owner}-r`)).toBeUndefined();
  });

  it("runs the graph with checkpoints in Postgres", async () => {
    const thread = (await server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string };
    const result = await server.app.inject({
      method: "POST",
      url: `/threads/${thread.thread_id}/runs/wait`,
      payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "hello" }] } },
    });
    const values = result.json() as { messages: { type: string; content: string }[] };
    expect(values.messages.map((m) => m.type)).toEqual(["human", "ai"]);
    const state = (await server.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/state` })).json() as { values: { messages: unknown[] } };
    expect(state.values.messages).toHaveLength(2);
  });

  it("answers thread, run and checkpoint ids with a NUL byte with 4xx, never reaching Postgres (which fails on a NUL in text)", async () => {
    const thread = (await server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string };
    const on = `/threads/${thread.thread_id}`;
    const nul = "x\u0000y";
    const requests = [
      { method: "GET" as const, url: "/threads/x%00y" },
      { method: "POST" as const, url: "/threads/x%00y/runs", payload: { assistant_id: "lead_agent", if_not_exists: "create" } },
      { method: "POST" as const, url: "/threads/search", payload: { ids: [nul] } },
      { method: "GET" as const, url: `${on}/runs/x%00y` },
      { method: "POST" as const, url: `${on}/runs/x%00y/cancel` },
      { method: "GET" as const, url: "/runs/x%00y/stream" },
      { method: "GET" as const, url: `${on}/state/x%00y` },
      { method: "POST" as const, url: `${on}/state/checkpoint`, payload: { checkpoint: { checkpoint_id: nul } } },
      { method: "POST" as const, url: `${on}/history`, payload: { before: nul } },
      { method: "POST" as const, url: `${on}/state`, payload: { values: {}, checkpoint_id: nul } },
      { method: "POST" as const, url: `${on}/runs/wait`, payload: { assistant_id: "lead_agent", checkpoint_id: nul } },
    ];
    const answers: [number, string][] = [];
    for (const request of requests) {
      const answer = await server.app.inject(request);
      answers.push([answer.statusCode, (answer.json() as { code: string }).code]);
    }
    expect(answers).toEqual([
      [400, "VALIDATION_FAILED"],
      [400, "VALIDATION_FAILED"],
      [400, "VALIDATION_FAILED"],
      [404, "RUN_NOT_FOUND"],
      [404, "RUN_NOT_FOUND"],
      [404, "RUN_NOT_FOUND"],
      [404, "NOT_FOUND"],
      // A NUL in a JSON body is refused by the body parser before any route runs (nul-in-json-bodies.test.ts).
      [400, "VALIDATION_FAILED"],
      [400, "VALIDATION_FAILED"],
      [400, "VALIDATION_FAILED"],
      [400, "VALIDATION_FAILED"],
    ]);
  });
});
