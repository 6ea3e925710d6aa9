// The user's control of memory, end to end: the gateway as a real process (`thinktank gateway`) and
// the agent server on one project folder. A user writes memory through /api/memory; their next new
// thread has the memory tool and the digest; PUT /api/memory/settings {enabled: false} leaves both
// out of the next run (the files stay); DELETE /api/memory forgets everything, and the next thread's
// digest is empty; another user's runs never see it.
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { MemoryStore } from "@thinktank/memory";
import { freePort } from "@thinktank/testing";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/index.js";
import { makeProjectFixture, startGatewayProcess, type GatewayProcess, type ProjectFixture } from "./support/project-fixture.js";

// What the model got: the digest (before the user's text) and the memory tool.
const script = `
rules:
  - when: { last_human: "^<memory>[\\\\s\\\\S]*Ana likes green tea[\\\\s\\\\S]*</memory>", tool_available: memory }
    reply: "digest and tool"
  - when: { last_human: "<memory>" }
    reply: "digest without its fact"
  - when: { tool_available: memory }
    reply: "tool only"
fallback:
  reply: "neither"
`;

let project: ProjectFixture;
let gateway: GatewayProcess;
let server: AgentServer;
let agentUrl: string;
const keys: Record<string, string> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  project = await makeProjectFixture({ script, config: ["sandbox:", "  warm_pool_size: 0", "code_execution:", "  mode: direct"] });
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  server = await buildAgentServer(config, { logger: false });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  agentUrl = `http://127.0.0.1:${port}`;
  gateway = await startGatewayProcess(project);
  // Key-less gateway: no credentials is the local operator, who makes the users.
  for (const name of ["alice", "bob"]) {
    const created = await fetch(`${gateway.url}/api/users`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, role: "user" }) });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; api_key: string };
    keys[name] = body.api_key;
    ids[name] = body.id;
  }
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  await server?.close();
  project?.cleanup();
});

async function api(user: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}${route}`, { method, headers: { "x-api-key": keys[user] as string, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The answer to "hello" on a new thread of `user`. */
async function newThreadAnswer(user: string): Promise<string> {
  const client = new Client({ apiUrl: agentUrl, apiKey: keys[user] as string, callerOptions: { maxRetries: 0 } });
  const thread = await client.threads.create();
  const values = (await client.runs.wait(thread.thread_id, "lead_agent", { input: { messages: [{ type: "human", content: "hello" }] } })) as { messages: Message[] };
  return String(values.messages.at(-1)?.content);
}

describe("memory under the user's control (gateway and agent on one project)", () => {
  it("what the API writes is in the next thread's digest; settings off leaves out the tool and the digest; forget everything empties it", async () => {
    expect((await api("alice", "PUT", "/api/memory/profile.md", { content: "Ana likes green tea." })).status).toBe(200);
    expect(await newThreadAnswer("alice")).toBe("digest and tool");
    // Bob's runs never see Alice's memory, and his API view is empty.
    expect(await newThreadAnswer("bob")).toBe("tool only");
    expect((await api("bob", "GET", "/api/memory")).body.files).toEqual([]);

    expect((await api("alice", "PUT", "/api/memory/settings", { enabled: false })).body).toEqual({ enabled: false, auto: false });
    expect(await newThreadAnswer("alice")).toBe("neither");
    // The files stay while memory is off, and the switch is Alice's alone.
    expect((await api("alice", "GET", "/api/memory/profile.md")).body.content).toBe("Ana likes green tea.");
    expect(await newThreadAnswer("bob")).toBe("tool only");
    expect((await api("alice", "PUT", "/api/memory/settings", { enabled: true })).body).toEqual({ enabled: true, auto: false });
    expect(await newThreadAnswer("alice")).toBe("digest and tool");

    const folder = MemoryStore.fromConfig(loadConfig({ cwd: project.dir, env: {} })).folderOf(ids.alice as string);
    expect(fs.existsSync(folder)).toBe(true);
    expect((await api("alice", "DELETE", "/api/memory")).body).toEqual({ removed: 1 });
    expect(fs.existsSync(folder)).toBe(false);
    expect(await newThreadAnswer("alice")).toBe("tool only");
  });
});
