import net from "node:net";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { makeAgentFixture, type AgentFixture } from "./support/agent-fixture.js";
import { runAgentProcessToExit, startAgentProcess, type AgentProcess } from "./support/agent-process.js";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(options: Parameters<typeof makeAgentFixture>[0] = {}): Promise<AgentFixture> {
  const made = await makeAgentFixture(options);
  cleanups.push(() => made.cleanup());
  return made;
}

async function start(env: Record<string, string>): Promise<AgentProcess> {
  const agent = await startAgentProcess(env);
  cleanups.push(() => agent.stop());
  return agent;
}

const human = (content: string) => ({ messages: [{ type: "human", content }] });
type Message = { type: string; content: unknown };

// Each test starts one or two server processes: generous time for a loaded machine.
describe("the agent server process", { timeout: 180_000 }, () => {
  it("keeps a thread across a restart (SQLite under the data dir)", async () => {
    const made = await fixture();
    const first = await start(made.env);
    const client = new Client({ apiUrl: first.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create({ metadata: { title: "persistent" } });
    await client.runs.wait(thread.thread_id, "lead_agent", { input: human("remember the pelican") });
    const paused = await client.runs.wait(thread.thread_id, "lead_agent", { input: human("ask me") });
    expect(paused).toHaveProperty("__interrupt__");
    expect(await first.stop()).toBe(0);

    const second = await start(made.env);
    const again = new Client({ apiUrl: second.url, callerOptions: { maxRetries: 0 } });
    const record = await again.threads.get(thread.thread_id);
    expect(record.metadata).toMatchObject({ title: "persistent" });
    expect(record.status).toBe("interrupted");
    const state = await again.threads.getState(thread.thread_id);
    expect((state.values as { messages: Message[] }).messages[0]).toMatchObject({ type: "human", content: "remember the pelican" });
    // The interrupt survives too: resuming after the restart finishes the paused run.
    const resumed = await again.runs.wait(thread.thread_id, "lead_agent", { command: { resume: "amber" } });
    expect((resumed as { messages: Message[] }).messages.at(-1)?.content).toBe("Your colour is amber.");
    expect((await again.threads.search({ metadata: { title: "persistent" } })).length).toBe(1);
  });

  it("fails a run at once with MODEL_NOT_CONFIGURED when no model is usable, and keeps serving", async () => {
    const made = await fixture({
      configYaml: "data_dir: data\nlog:\n  level: warn\nmodels:\n  default: claude\n  providers:\n    claude:\n      provider: anthropic\n      model: claude-sonnet-4-5\n",
    });
    const agent = await start(made.env);
    const client = new Client({ apiUrl: agent.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const parts: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "lead_agent", { input: human("hello") })) parts.push(part);
    expect(parts.map((p) => p.event)).toEqual(["metadata", "error"]);
    expect(parts[1]?.data).toMatchObject({ error: "MODEL_NOT_CONFIGURED" });
    expect((parts[1]?.data as { message: string }).message).toContain("ANTHROPIC_API_KEY");
    await expect(client.runs.wait(thread.thread_id, "lead_agent", { input: human("again") })).rejects.toThrow(/MODEL_NOT_CONFIGURED: .*ANTHROPIC_API_KEY/);
    const record = await client.threads.get(thread.thread_id);
    expect(record.status).toBe("error");
    expect(record.error).toMatchObject({ error: "MODEL_NOT_CONFIGURED" });
    // Everything else keeps working.
    const health = await fetch(`${agent.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", sandbox: { backend: expect.stringMatching(/^(bubblewrap|deno)$/), isolated: true, memory: { mode: expect.stringMatching(/^(cgroup-v2|cgroup-v1|per-process)$/) } } });
    expect((await client.threads.search()).length).toBe(1);
    expect((await client.assistants.search()).length).toBe(1);
  });

  it("says which port is taken and how to pick another, and exits non-zero", async () => {
    const made = await fixture();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(made.port, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const result = await runAgentProcessToExit(made.env);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`port ${made.port} on 127.0.0.1 is already taken`);
    expect(result.output).toContain(`AGENT_PORT=${made.port + 1}`);
    expect(result.output).toContain("agent.port in config.yaml");
  });

  // One process for two checks (each process costs seconds of start-up): the refusal, and the warning before it.
  it("refuses to listen on a non-loopback address without THINKTANK_API_KEY, having warned once about a deprecated config key (plugins.stdio_servers)", async () => {
    const made = await fixture({ extraConfig: ["plugins:", "  stdio_servers: deny"] });
    const result = await runAgentProcessToExit({ ...made.env, AGENT_HOST: "0.0.0.0" });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("refusing to listen on 0.0.0.0 without THINKTANK_API_KEY");
    // A refused address ends start-up right after config is read: the warning comes first.
    expect(result.output.match(/thinktank agent: warning: .*plugins\.stdio_servers is deprecated: use plugins\.host_programs/g)).toHaveLength(1);
  });

  it("requires THINKTANK_API_KEY on every route but /healthz when it is set", async () => {
    const made = await fixture({ env: { THINKTANK_API_KEY: "s3cret-key" } });
    const agent = await start(made.env);
    expect((await fetch(`${agent.url}/healthz`)).status).toBe(200);
    const denied = await fetch(`${agent.url}/threads/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
    expect((await fetch(`${agent.url}/info`, { headers: { "x-api-key": "wrong" } })).status).toBe(401);
    expect((await fetch(`${agent.url}/info`, { headers: { authorization: "Bearer s3cret-key" } })).status).toBe(200);
    const client = new Client({ apiUrl: agent.url, apiKey: "s3cret-key", callerOptions: { maxRetries: 0 } });
    const values = await client.runs.wait(null, "lead_agent", { input: human("with a key") });
    expect((values as { messages: Message[] }).messages.at(-1)?.content).toBe("Hello from the script. You said: with a key");
  });
});
