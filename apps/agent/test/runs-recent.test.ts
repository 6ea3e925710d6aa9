// GET /runs/recent (the console's activity list): runs across the caller's threads, newest first,
// each ended run with its figures (duration, tokens, tool calls and failures) counted while it ran.
// Other users' runs are never listed; an administrator sees everyone's only with X-Thinktank-Scope: all.
import { loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";
import { testScript } from "./support/agent-fixture.js";
import { createFreshDatabase, type FreshDatabase } from "./support/fresh-postgres.js";

const adminKey = "admin-key-for-the-recent-runs-test";
const human = (content: string) => ({ messages: [{ type: "human", content }] });

interface Listed {
  run_id: string;
  thread_id: string;
  status: string;
  owner_id: string;
  duration_ms?: number;
  tokens?: { input: number; output: number; total: number; estimated?: boolean };
  tool_calls?: number;
  tool_errors?: number;
}

const backends = [
  { name: "sqlite", options: {} },
  { name: "postgres", options: needs("postgres") },
] as const;

for (const backend of backends) describe(`GET /runs/recent (${backend.name})`, { ...backend.options, timeout: 120_000 }, () => {
  const temp = makeTempDir("tt-agent-recent-");
  let database: FreshDatabase | undefined;
  let server: AgentServer;
  let url: string;

  async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${url}${path}`, { method, headers: { "x-api-key": key, ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function runOnce(key: string, message: string): Promise<{ thread: string; run: string }> {
    const thread = ((await call(key, "POST", "/threads", {})).body as { thread_id: string }).thread_id;
    const created = await call(key, "POST", `/threads/${thread}/runs`, { assistant_id: "lead_agent", input: human(message) });
    const run = (created.body as { run_id: string }).run_id;
    expect((await call(key, "GET", `/threads/${thread}/runs/${run}/join`)).status).toBe(200);
    return { thread, run };
  }

  const recent = async (key: string, headers: Record<string, string> = {}) => ((await call(key, "GET", "/runs/recent", undefined, headers)).body as { runs: Listed[] }).runs;

  beforeAll(async () => {
    database = backend.name === "postgres" ? await createFreshDatabase("tt_recent") : undefined;
    const threads = database ? ["agent:", "  threads:", "    backend: postgres", "    postgres_url_env: TEST_PG"] : [];
    writeTree(temp.dir, {
      "config.yaml": ["data_dir: data", "log:", "  level: warn", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", ...threads, ""].join("\n"),
      "script.yaml": testScript,
      "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    });
    server = await buildAgentServer(loadConfig({ cwd: temp.dir, env: { THINKTANK_API_KEY: adminKey, ...(database ? { TEST_PG: database.url } : {}) } }), { logger: false });
    const port = await freePort();
    await server.app.listen({ host: "127.0.0.1", port });
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
    temp.cleanup();
  });

  it("lists the caller's runs newest first with their figures, never another user's", async () => {
    const [alice, bob] = await Promise.all(["alice", "bob"].map((name) => server.identity.users.create({ name, role: "user" })));
    const listed = await runOnce(alice!.apiKey, "list /mnt/user-data/workspace");
    const failedTool = await runOnce(alice!.apiKey, "read /mnt/user-data/workspace/missing.txt");
    const bobs = await runOnce(bob!.apiKey, "hello there");

    const mine = await recent(alice!.apiKey);
    expect(mine.map((run) => run.run_id)).toEqual([failedTool.run, listed.run]);
    for (const run of mine) {
      expect(run).toMatchObject({ status: "success", owner_id: alice!.user.id, tool_calls: 1 });
      expect(run.duration_ms).toBeGreaterThanOrEqual(0);
      // The scripted model reports no usage: the tokens are counted, and say so.
      expect(run.tokens).toMatchObject({ estimated: true });
      expect(run.tokens!.input).toBeGreaterThan(0);
      expect(run.tokens!.total).toBe(run.tokens!.input + run.tokens!.output);
    }
    expect(mine[0]!.tool_errors).toBe(1);
    expect(mine[1]!.tool_errors).toBe(0);

    expect((await recent(bob!.apiKey)).map((run) => [run.run_id, run.tool_calls])).toEqual([[bobs.run, 0]]);
    // An administrator: their own by default, everyone's with the scope header.
    expect(await recent(adminKey)).toEqual([]);
    expect((await recent(adminKey, { "x-thinktank-scope": "all" })).map((run) => run.run_id)).toEqual([bobs.run, failedTool.run, listed.run]);
    // Same answer as a missing credential gets anywhere; a bad limit is refused.
    expect((await call("not-a-key", "GET", "/runs/recent")).status).toBe(401);
    expect((await call(adminKey, "GET", "/runs/recent?limit=0")).status).toBe(400);
  });
});
