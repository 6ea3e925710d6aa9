// Red-team cases for assistants and crons across users, on a real agent server over HTTP: every
// assistant and cron route answers another user's id exactly as an id that names nothing (status
// and body, the id aside); a run or a cron of one user cannot use another's assistant or thread; a
// deleted user's cron stops firing.
import crypto from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CronFire } from "@thinktank/runs";
import { buildAgentServer, type AgentServer } from "../src/server/build-agent-server.js";
import { testScript } from "./support/agent-fixture.js";

const adminKey = "admin-key-for-the-red-team";
const human = { messages: [{ type: "human", content: "hello" }] };
const temp = makeTempDir("tt-agent-red-team-");
let server: AgentServer;
let url: string;
let aliceKey: string;
let bobKey: string;
let bobId: string;
const fires: CronFire[] = [];
const fireListeners = new Set<() => void>();

beforeAll(async () => {
  writeTree(temp.dir, {
    "config.yaml": ["data_dir: data", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", "crons:", "  min_interval_seconds: 1", ""].join("\n"),
    "script.yaml": testScript,
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
  });
  server = await buildAgentServer(loadConfig({ cwd: temp.dir, env: { THINKTANK_API_KEY: adminKey } }), {
    logger: false,
    onCronFire: (fire) => {
      fires.push(fire);
      for (const listener of fireListeners) listener();
    },
  });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  url = `http://127.0.0.1:${port}`;
  const [alice, bob] = await Promise.all(["alice", "bob"].map((name) => server.identity.users.create({ name, role: "user" })));
  aliceKey = alice!.apiKey;
  bobKey = bob!.apiKey;
  bobId = bob!.user.id;
}, 120_000);

afterAll(async () => {
  await server?.close();
  temp.cleanup();
});

async function call(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

const client = (key: string) => new Client({ apiUrl: url, apiKey: key, callerOptions: { maxRetries: 0 } });

describe("assistants and crons of another user", { timeout: 120_000 }, () => {
  it("answers every assistant and cron route with her id as with an id that names nothing, and changes nothing of hers", async () => {
    const alice = client(aliceKey);
    const assistant = await alice.assistants.create({ graphId: "lead_agent", name: "alice's", metadata: { team: "alice" }, context: { instructions: "Alice's secret persona." } });
    const thread = (await alice.threads.create()).thread_id;
    const cron = await alice.crons.createForThread(thread, assistant.assistant_id, { schedule: "0 8 * * *", input: human });
    const cronId = (cron as unknown as { cron_id: string }).cron_id;
    const probes: [string, (id: string, cron: string) => [string, string, unknown?]][] = [
      ["get", (id) => ["GET", `/assistants/${id}`]],
      ["graph", (id) => ["GET", `/assistants/${id}/graph`]],
      ["schemas", (id) => ["GET", `/assistants/${id}/schemas`]],
      ["subgraphs", (id) => ["GET", `/assistants/${id}/subgraphs`]],
      ["update", (id) => ["PATCH", `/assistants/${id}`, { name: "taken" }]],
      ["versions", (id) => ["POST", `/assistants/${id}/versions`, {}]],
      ["latest", (id) => ["POST", `/assistants/${id}/latest`, { version: 1 }]],
      ["delete", (id) => ["DELETE", `/assistants/${id}`]],
      // Not here: POST /assistants with her id answers 409 CONFLICT (ids are one space for everyone, as thread ids are; ids are the server's random UUIDs).
      ["run with her assistant", (id) => ["POST", `/runs/wait`, { assistant_id: id, input: human }]],
      ["cron with her assistant", (id) => ["POST", `/runs/crons`, { assistant_id: id, schedule: "0 8 * * *" }]],
      ["cron update", (_id, cronOf) => ["PATCH", `/runs/crons/${cronOf}`, { enabled: false }]],
      ["cron delete", (_id, cronOf) => ["DELETE", `/runs/crons/${cronOf}`]],
    ];
    for (const [label, probe] of probes) {
      const missing = crypto.randomUUID();
      const missingCron = crypto.randomUUID();
      const [method, herPath, herBody] = probe(assistant.assistant_id, cronId);
      const [, nonePath, noneBody] = probe(missing, missingCron);
      const hers = await call(method, herPath, bobKey, herBody);
      const none = await call(method, nonePath, bobKey, noneBody);
      expect([label, hers.status]).toEqual([label, none.status]);
      expect(hers.status, label).toBeGreaterThanOrEqual(400);
      expect([label, hers.text.replaceAll(assistant.assistant_id, "ID").replaceAll(cronId, "CRON")]).toEqual([label, none.text.replaceAll(missing, "ID").replaceAll(missingCron, "CRON")]);
    }
    // Search and count name none of hers, whatever the filter.
    const bob = client(bobKey);
    expect((await bob.assistants.search({ metadata: { team: "alice" } })).map((each) => each.assistant_id)).toEqual([]);
    expect(await bob.assistants.count({ metadata: { team: "alice" } })).toBe(0);
    expect(await bob.crons.search({ assistantId: assistant.assistant_id })).toEqual([]);
    expect(await bob.crons.search({ threadId: thread })).toEqual([]);
    expect(await bob.crons.count({ threadId: thread })).toBe(0);
    // Nothing of hers changed.
    expect(await alice.assistants.get(assistant.assistant_id)).toMatchObject({ name: "alice's", version: 1 });
    expect(await alice.crons.search({ threadId: thread })).toMatchObject([{ cron_id: cronId, enabled: true }]);
  });

  it("refuses a cron on her thread as on a missing one, and a run on her thread with his own assistant", async () => {
    const alice = client(aliceKey);
    const bob = client(bobKey);
    const thread = (await alice.threads.create()).thread_id;
    const mine = await bob.assistants.create({ graphId: "lead_agent", name: "bob's" });
    const missing = crypto.randomUUID();
    const onHers = await call("POST", `/threads/${thread}/runs/crons`, bobKey, { assistant_id: mine.assistant_id, schedule: "0 8 * * *" });
    const onNone = await call("POST", `/threads/${missing}/runs/crons`, bobKey, { assistant_id: mine.assistant_id, schedule: "0 8 * * *" });
    expect([onHers.status, onHers.text.replaceAll(thread, "ID")]).toEqual([onNone.status, onNone.text.replaceAll(missing, "ID")]);
    expect(onHers.status).toBe(404);
    const runHers = await call("POST", `/threads/${thread}/runs/wait`, bobKey, { assistant_id: mine.assistant_id, input: human });
    expect(runHers.status).toBe(404);
    // Her run on her thread with his assistant: as a missing assistant.
    const herRun = await call("POST", `/threads/${thread}/runs/wait`, aliceKey, { assistant_id: mine.assistant_id, input: human });
    const noneRun = await call("POST", `/threads/${thread}/runs/wait`, aliceKey, { assistant_id: missing, input: human });
    expect([herRun.status, herRun.text.replaceAll(mine.assistant_id, "ID")]).toEqual([noneRun.status, noneRun.text.replaceAll(missing, "ID")]);
    expect(herRun.status).toBe(404);
  });

  it("bounds what an assistant or a cron keeps: metadata, a cron's input, merged metadata over versions", async () => {
    const big = "x".repeat(300 * 1024);
    const expectField = async (answer: Promise<{ status: number; text: string }>, code: string, field: string) => {
      const { status, text } = await answer;
      expect([status, JSON.parse(text).code, JSON.parse(text).details?.field]).toEqual([422, code, field]);
    };
    await expectField(call("POST", "/assistants", aliceKey, { graph_id: "lead_agent", metadata: { big } }), "INVALID_ASSISTANT", "metadata");
    const made = await client(aliceKey).assistants.create({ graphId: "lead_agent", metadata: { a: "y".repeat(40 * 1024) } });
    // Each update within the bound, the merged metadata past it.
    await expectField(call("PATCH", `/assistants/${made.assistant_id}`, aliceKey, { metadata: { b: "z".repeat(40 * 1024) } }), "INVALID_ASSISTANT", "metadata");
    await expectField(call("POST", "/runs/crons", aliceKey, { assistant_id: "lead_agent", schedule: "0 8 * * *", input: { messages: [{ type: "human", content: big }] } }), "INVALID_CRON", "input");
    await expectField(call("POST", "/runs/crons", aliceKey, { assistant_id: "lead_agent", schedule: "0 8 * * *", metadata: { big } }), "INVALID_CRON", "metadata");
    const cron = (await client(aliceKey).crons.create("lead_agent", { schedule: "0 8 * * *", input: human })) as unknown as { cron_id: string };
    await expectField(call("PATCH", `/runs/crons/${cron.cron_id}`, aliceKey, { input: { messages: [{ type: "human", content: big }] } }), "INVALID_CRON", "input");
    await client(aliceKey).crons.delete(cron.cron_id);
  });

  it("stops a deleted user's cron: the next fire pauses it with USER_NOT_FOUND and makes no run", async () => {
    const bob = client(bobKey);
    const cron = (await bob.crons.create("lead_agent", { schedule: "* * * * * *", input: human })) as unknown as { cron_id: string };
    const paused = new Promise<CronFire>((resolve) => {
      const listener = () => {
        const fire = fires.find((each) => each.cronId === cron.cron_id && each.outcome === "paused");
        if (fire) {
          fireListeners.delete(listener);
          resolve(fire);
        }
      };
      fireListeners.add(listener);
    });
    await server.identity.users.remove(bobId);
    const fire = await paused;
    expect(fire.reason).toMatchObject({ code: "USER_NOT_FOUND" });
    const everyone = await fetch(`${url}/runs/crons/search`, { method: "POST", headers: { "x-api-key": adminKey, "x-thinktank-scope": "all", "content-type": "application/json" }, body: JSON.stringify({ limit: 1000 }) });
    const record = ((await everyone.json()) as { cron_id: string; enabled: boolean; paused_reason?: { code: string } }[]).find((each) => each.cron_id === cron.cron_id);
    expect(record).toMatchObject({ enabled: false, paused_reason: { code: "USER_NOT_FOUND" } });
  });
});
