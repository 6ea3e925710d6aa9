// Assistants on Postgres with two agent servers on one database: an assistant made on one is found,
// changed and pinned on the other (versions are rows, not memory), searched by metadata (JSONB
// containment), and a run on either uses the version current when it was created; the thread
// remembers the assistant.
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { freePort, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/index.js";
import { createFreshDatabase, type FreshDatabase } from "./support/fresh-postgres.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";

const script = `
rules:
  - when: { system: "<assistant_instructions>\\nTalk like a pirate.", step: 0 }
    reply: "Arr! {{lastHuman}}"
  - when: { system: "<assistant_instructions>\\nTalk like a robot.", step: 0 }
    reply: "BEEP. {{lastHuman}}"
fallback:
  reply: "plain: {{lastHuman}}"
`;

describe("assistants across two agent servers on one Postgres", needs("postgres"), () => {
  let database: FreshDatabase;
  const projects: ProjectFixture[] = [];
  const servers: AgentServer[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    database = await createFreshDatabase("tt_assistants");
    for (let index = 0; index < 2; index++) {
      const project = await makeProjectFixture({ script, config: ["agent:", "  threads:", "    backend: postgres", "    postgres_url_env: TEST_PG", "sandbox:", "  warm_pool_size: 0"] });
      projects.push(project);
      const server = await buildAgentServer(loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "", TEST_PG: database.url } }), { logger: false });
      servers.push(server);
      const port = await freePort();
      await server.app.listen({ host: "127.0.0.1", port });
      clients.push(new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } }));
    }
  }, 180_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const project of projects) project.cleanup();
    await database?.drop();
  });

  const ask = async (client: Client, threadId: string, assistantId: string, content: string): Promise<string> => {
    const values = (await client.runs.wait(threadId, assistantId, { input: { messages: [{ type: "human", content }] } })) as { messages: Message[] };
    return String(values.messages.at(-1)?.content);
  };

  it("makes, changes and pins on either; runs follow the version current at their creation", { timeout: 120_000 }, async () => {
    const [a, b] = clients as [Client, Client];
    const created = await a.assistants.create({ graphId: "lead_agent", name: "pirate", metadata: { crew: "black pearl" }, config: { configurable: { instructions: "Talk like a pirate." } } });
    const id = created.assistant_id;
    expect((await b.assistants.get(id)).version).toBe(1);
    expect((await b.assistants.update(id, { config: { configurable: { instructions: "Talk like a robot." } } })).version).toBe(2);
    const thread = await a.threads.create();
    expect(await ask(a, thread.thread_id, id, "hello")).toBe("BEEP. hello");
    expect((await a.assistants.setLatest(id, 1)).version).toBe(1);
    expect(await ask(b, thread.thread_id, id, "ahoy")).toBe("Arr! ahoy");
    const runs = await b.runs.list(thread.thread_id);
    expect(runs.map((run) => run.metadata?.assistant_version)).toEqual([1, 2]);
    expect((await a.threads.get(thread.thread_id)).metadata).toMatchObject({ assistant_id: id });
    expect((await b.assistants.search({ metadata: { crew: "black pearl" } })).map((each) => each.assistant_id)).toEqual([id]);
    expect(await a.assistants.count({ metadata: { crew: "black pearl" } })).toBe(1);
    expect((await b.assistants.getVersions(id)).map((each) => each.version)).toEqual([2, 1]);
    await b.assistants.delete(id);
    await expect(a.assistants.get(id)).rejects.toThrow(/ASSISTANT_NOT_FOUND/);
    expect(await ask(a, thread.thread_id, "lead_agent", "hi")).toBe("plain: hi");
  });
});
