// Assistants through @langchain/langgraph-sdk against a real agent server (scripted models from
// config.yaml): an assistant's instructions reach the first model call (a scripted rule matching
// them answers), only its skills are searchable and offered, a new version changes the runs and
// `latest` pins the old one again, runs record the version they used and the thread remembers the
// assistant. Bad input answers 422 INVALID_ASSISTANT naming the field; lead_agent's assistant is
// read-only; another user's assistants are missing to a user; the per-owner limit holds.
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, inspectPrompt, type AgentServer } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";

const script = `
rules:
  - id: pirate
    when: { system: "<assistant_instructions>\\nTalk like a pirate.", last_human: "^hello", step: 0 }
    reply: "Arr! {{lastHuman}}"
  - id: robot
    when: { system: "<assistant_instructions>\\nTalk like a robot.", last_human: "^hello", step: 0 }
    reply: "BEEP. {{lastHuman}}"
  - id: find
    when: { last_human: "^find (.+)", step: 0 }
    tool_calls: [{ name: search_skills, args: { query: "{{match.1}}", kind: skills, limit: 10 } }]
  - id: found
    when: { last_tool_name: search_skills }
    reply: "found: {{lastToolResult}}"
fallback:
  reply: "seen: {{lastHuman}}"
`;
const otherScript = "rules: []\nfallback:\n  reply: 'the other model: {{lastHuman}}'\n";

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`;

let project: ProjectFixture;
let server: AgentServer;
let url: string;
let admin: Client;
let userKey: string;

beforeAll(async () => {
  project = await makeProjectFixture({
    script,
    config: ["    other:", "      provider: scripted", "      script: other.yaml", "skills:", "  listing: compact", "sandbox:", "  warm_pool_size: 0", "assistants:", "  max_per_owner: 3"],
    files: {
      "other.yaml": otherScript,
      "skills/public/pdf/SKILL.md": skill("pdf", "Fill in and merge PDF forms. Use for any PDF file."),
      "skills/custom/brand-kit/SKILL.md": skill("brand-kit", "Apply the house look to slides and posters: colours, type and logo."),
      "skills/custom/release-notes/SKILL.md": skill("release-notes", "Write release notes from merged pull requests."),
      "plugins/installed/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales", description: "Sales" }),
      "plugins/installed/sales/skills/call-prep/SKILL.md": skill("call-prep", "Prepare for a sales call: account context, attendees and an agenda."),
      "plugins/installed/sales/skills/forecast/SKILL.md": skill("forecast", "Build a weighted revenue forecast for the quarter of sales."),
      "plugins/installed/sales/commands/pipeline.md": "---\ndescription: Review the open pipeline by stage\n---\nReview the pipeline.\n",
    },
  });
  server = await buildAgentServer(loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } }), { logger: false });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  url = `http://127.0.0.1:${port}`;
  admin = new Client({ apiUrl: url, callerOptions: { maxRetries: 0 } });
  userKey = (await server.identity.users.create({ name: "ursula", role: "user" })).apiKey;
}, 120_000);

afterAll(async () => {
  await server?.close();
  project?.cleanup();
});

/** One message on a thread with an assistant; the last answer's text. */
async function ask(threadId: string, assistantId: string, content: string): Promise<string> {
  const values = (await admin.runs.wait(threadId, assistantId, { input: { messages: [{ type: "human", content }] } })) as { messages: Message[] };
  const last = values.messages.at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
}

/** A raw request, for the answers the SDK turns into exceptions. */
async function call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: { code?: string; details?: { field?: string } } & Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(key ? { "x-api-key": key } : {}) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

describe("assistants through the SDK", { timeout: 120_000 }, () => {
  it("instructions reach the first model call, only the allowed skills are searched and offered; a new version and latest move the runs", async () => {
    const created = await admin.assistants.create({
      graphId: "lead_agent",
      name: "Pirate sales",
      metadata: { team: "sales" },
      config: { configurable: { instructions: "Talk like a pirate.", skills: ["public:pdf", "plugin:sales:call-prep"] } },
    });
    expect(created).toMatchObject({ graph_id: "lead_agent", name: "Pirate sales", version: 1, metadata: { team: "sales" } });
    const id = created.assistant_id;
    const thread = await admin.threads.create();

    expect(await ask(thread.thread_id, id, "hello there")).toBe("Arr! hello there");
    const found = await ask(thread.thread_id, id, "find sales forecast pdf");
    expect(found).toContain("call-prep");
    expect(found).toContain("/mnt/skills/public/pdf/SKILL.md");
    expect(found).not.toContain("forecast/SKILL.md");
    expect(found).not.toContain("brand-kit");
    const offered = await ask(thread.thread_id, id, "prepare my sales call and build the revenue forecast for the quarter");
    const offers = offered.split("<relevant_skills>")[1] ?? "";
    expect(offers).toContain("call-prep");
    expect(offers).not.toContain("forecast");
    // Slash commands: the allowed skill's runs, a plugin command it does not select is unknown.
    expect(await ask(thread.thread_id, id, "/sales:call-prep Acme")).toContain("seen: Skill call-prep (");
    expect(await ask(thread.thread_id, id, "/sales:pipeline")).toMatch(/sales:pipeline/);
    expect(await ask(thread.thread_id, id, "/sales:pipeline")).not.toContain("Review the pipeline");
    // lead_agent on the same words: the forecast is there (the restriction is the assistant's).
    const other = await admin.threads.create();
    expect(await ask(other.thread_id, "lead_agent", "hello there")).toBe("seen: hello there");
    expect((await ask(other.thread_id, "lead_agent", "prepare my sales call and build the revenue forecast for the quarter")).split("<relevant_skills>")[1]).toContain("forecast");
    expect(await ask(other.thread_id, "lead_agent", "/sales:pipeline")).toContain("Review the pipeline");

    // The run recorded the version it used; the thread remembers its last run's assistant.
    const [latestRun] = await admin.runs.list(thread.thread_id, { limit: 1 });
    expect(latestRun?.assistant_id).toBe(id);
    expect(latestRun?.metadata).toMatchObject({ assistant_version: 1 });
    expect((await admin.threads.get(thread.thread_id)).metadata).toMatchObject({ assistant_id: id });

    // Version 2: another persona and skills; runs follow it.
    const updated = await admin.assistants.update(id, { config: { configurable: { instructions: "Talk like a robot.", skills: { deny: ["plugin:sales:*"] } } } });
    expect(updated).toMatchObject({ version: 2, name: "Pirate sales", metadata: { team: "sales" } });
    expect(await ask(thread.thread_id, id, "hello again")).toBe("BEEP. hello again");
    expect(await ask(thread.thread_id, id, "find release notes brand slides pdf")).toContain("brand-kit");
    const versions = await admin.assistants.getVersions(id);
    expect(versions.map((version) => version.version)).toEqual([2, 1]);

    // Pin version 1 again: runs follow.
    const pinned = await admin.assistants.setLatest(id, 1);
    expect(pinned.version).toBe(1);
    expect((await admin.assistants.get(id)).config).toMatchObject({ configurable: { instructions: "Talk like a pirate." } });
    expect(await ask(thread.thread_id, id, "hello once more")).toBe("Arr! hello once more");
    const [pinnedRun] = await admin.runs.list(thread.thread_id, { limit: 1 });
    expect(pinnedRun?.metadata).toMatchObject({ assistant_version: 1 });
  });

  it("uses the assistant's model, given in context as newer SDK clients send it", async () => {
    const created = await admin.assistants.create({ graphId: "lead_agent", name: "Other model", context: { model: "other", code_execution: { mode: "code" }, memory: "off" } });
    const thread = await admin.threads.create();
    expect(await ask(thread.thread_id, created.assistant_id, "hi")).toBe("the other model: hi");
  });

  it("inspect prompt --assistant shows what its runs send: its instructions, only its skills and commands, a smaller prompt", async () => {
    const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
    const created = await admin.assistants.create({ graphId: "lead_agent", name: "Narrow", context: { instructions: "Answer in French.", skills: { allow: ["pdf"] } } });
    const lead = await inspectPrompt(config, { listing: "full" });
    const narrow = await inspectPrompt(config, { listing: "full", assistant: created.assistant_id });
    expect(narrow.assistant).toMatchObject({ assistant_id: created.assistant_id, version: 1, name: "Narrow" });
    expect(narrow.systemPrompt).toContain("<assistant_instructions>\nAnswer in French.\n</assistant_instructions>");
    expect(narrow.systemPrompt).toContain("/mnt/skills/public/pdf/SKILL.md");
    for (const gone of ["brand-kit", "release-notes", "call-prep", "forecast", "/sales:pipeline"]) {
      expect(lead.systemPrompt).toContain(gone);
      expect(narrow.systemPrompt).not.toContain(gone);
    }
    expect(narrow.tokens.total).toBeLessThan(lead.tokens.total);
    await admin.assistants.delete(created.assistant_id);
    // Sub-agents: denying the only one takes task and the <subagent_system> section away.
    const noAgents = await admin.assistants.create({ graphId: "lead_agent", name: "Alone", context: { agents: { deny: ["general-purpose"] } } });
    const alone = await inspectPrompt(config, { listing: "full", assistant: noAgents.assistant_id });
    expect(lead.tools.map((tool) => tool.name)).toContain("task");
    expect(alone.tools.map((tool) => tool.name)).not.toContain("task");
    expect(lead.systemPrompt).toContain("general-purpose");
    expect(alone.systemPrompt).not.toContain("general-purpose");
    await admin.assistants.delete(noAgents.assistant_id);
    await expect(inspectPrompt(config, { assistant: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ code: "ASSISTANT_NOT_FOUND" });
  });

  it("search, count, select and pages; lead_agent comes first and is read-only", async () => {
    const page = await admin.assistants.search({ graphId: "lead_agent", limit: 2, includePagination: true });
    expect(page.assistants[0]?.name).toBe("lead_agent");
    expect(page.assistants).toHaveLength(2);
    expect(page.next).toBe("2");
    const bySales = await admin.assistants.search({ metadata: { team: "sales" } });
    expect(bySales.map((assistant) => assistant.name)).toEqual(["Pirate sales"]);
    expect(await admin.assistants.count({ metadata: { team: "sales" } })).toBe(1);
    expect(await admin.assistants.count({ name: "PIRATE" })).toBe(1);
    const selected = await admin.assistants.search({ name: "pirate", select: ["assistant_id", "name"] });
    expect(Object.keys(selected[0] ?? {}).sort()).toEqual(["assistant_id", "name"]);

    const lead = await call("DELETE", "/assistants/lead_agent");
    expect(lead.status).toBe(403);
    expect(lead.body.code).toBe("ASSISTANT_PROTECTED");
    expect((await call("PATCH", "/assistants/lead_agent", { name: "mine" })).body.code).toBe("ASSISTANT_PROTECTED");
    expect((await admin.assistants.get("lead_agent")).version).toBe(1);
  });

  it("bad input answers 422 INVALID_ASSISTANT with the field, and nothing is created", async () => {
    const before = await admin.assistants.count();
    const cases: [unknown, string][] = [
      [{ graph_id: "lead_agent", config: { configurable: { model: "gpt-nowhere" } } }, "config.configurable.model"],
      [{ graph_id: "lead_agent", config: { configurable: { skills: ["plugin:nope:*"] } } }, "config.configurable.skills[0]"],
      [{ graph_id: "lead_agent", context: { agents: { deny: ["no-such-agent"] } } }, "context.agents[0]"],
      [{ graph_id: "lead_agent", context: { mcp_servers: ["github"] } }, "context.mcp_servers[0]"],
      [{ graph_id: "lead_agent", context: { colour: "blue" } }, "context.colour"],
      [{ graph_id: "lead_agent", context: { code_execution: { mode: "fast" } } }, "context.code_execution.mode"],
      [{ graph_id: "lead_agent", context: { memory: "sometimes" } }, "context.memory"],
      [{ graph_id: "lead_agent", context: { instructions: 42 } }, "context.instructions"],
      [{ graph_id: "lead_agent", config: { configurable: { model: "other" } }, context: { model: "s" } }, "context.model"],
      [{ graph_id: "lead_agent", config: { recursion_limit: 5 } }, "config.recursion_limit"],
      [{ graph_id: "another_graph" }, "graph_id"],
      [{ graph_id: "lead_agent", assistant_id: "not-a-uuid" }, "assistant_id"],
      [{ graph_id: "lead_agent", name: "" }, "name"],
      [{ graph_id: "lead_agent", colour: "blue" }, "colour"],
      // Lists are bounded: every entry is matched against every name the creator has.
      [{ graph_id: "lead_agent", context: { skills: Array.from({ length: 101 }, (_, index) => `skill-${index}`) } }, "context.skills"],
      [{ graph_id: "lead_agent", context: { skills: { allow: [`${"*a".repeat(60)}b`] } } }, "context.skills.allow[0]"],
    ];
    for (const [body, field] of cases) {
      const answer = await call("POST", "/assistants", body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.code).toBe("INVALID_ASSISTANT");
      expect(answer.body.details?.field, JSON.stringify(body)).toBe(field);
    }
    expect(await admin.assistants.count()).toBe(before);
  });

  it("a user reaches only their own assistants and lead_agent's, and keeps at most assistants.max_per_owner", async () => {
    const mine = await admin.assistants.search({ name: "pirate" });
    const adminsId = mine[0]?.assistant_id as string;
    const user = new Client({ apiUrl: url, apiKey: userKey, callerOptions: { maxRetries: 0 } });
    for (const [method, path] of [
      ["GET", `/assistants/${adminsId}`],
      ["PATCH", `/assistants/${adminsId}`],
      ["DELETE", `/assistants/${adminsId}`],
      ["POST", `/assistants/${adminsId}/versions`],
    ] as const) {
      const answer = await call(method, path, method === "GET" || method === "DELETE" ? undefined : {}, userKey);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.code).toBe("ASSISTANT_NOT_FOUND");
    }
    // A run with another's assistant is as with a missing one.
    const thread = await user.threads.create();
    const run = await call("POST", `/threads/${thread.thread_id}/runs`, { assistant_id: adminsId, input: { messages: [{ type: "human", content: "hi" }] } }, userKey);
    expect(run.body.code).toBe("ASSISTANT_NOT_FOUND");
    expect((await user.assistants.search()).map((assistant) => assistant.name)).toEqual(["lead_agent"]);

    for (let index = 0; index < 3; index++) await user.assistants.create({ graphId: "lead_agent", name: `mine ${index}` });
    const over = await call("POST", "/assistants", { graph_id: "lead_agent", name: "one too many" }, userKey);
    expect(over.status).toBe(409);
    expect(over.body.code).toBe("ASSISTANT_LIMIT_REACHED");
    expect(await user.assistants.count()).toBe(4);
    const [first] = await user.assistants.search({ name: "mine 0" });
    await user.assistants.delete(first?.assistant_id as string);
    expect((await call("GET", `/assistants/${first?.assistant_id}`, undefined, userKey)).status).toBe(404);
    const roomy = await user.assistants.create({ graphId: "lead_agent", name: "room again" });
    // delete_threads: the threads whose last run used it go with it; others stay.
    const used = await user.threads.create();
    const other = await user.threads.create();
    await user.runs.wait(used.thread_id, roomy.assistant_id, { input: { messages: [{ type: "human", content: "hi" }] } });
    await user.runs.wait(other.thread_id, "lead_agent", { input: { messages: [{ type: "human", content: "hi" }] } });
    await user.assistants.delete(roomy.assistant_id, { deleteThreads: true });
    expect((await call("GET", `/threads/${used.thread_id}`, undefined, userKey)).status).toBe(404);
    expect((await call("GET", `/threads/${other.thread_id}`, undefined, userKey)).status).toBe(200);
  });
});
