// Skill search with meaning (config.search.embeddings) in a real agent server through the
// LangGraph SDK: with an OpenAI-compatible embeddings endpoint configured (a stand-in over HTTP,
// the scripted model of the embeddings stage), the skill a message is offered and the skill
// search_skills puts first are ranked by keywords and meaning, so a request that shares words only
// with another skill still gets the one it needs. Without the endpoint's answer, keywords alone.
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { parseChatScript } from "@thinktank/models";
import { freePort, startEmbeddingsServer, type EmbeddingsServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";
import { RecordingModel, type RecordedCall } from "./support/recording-model.js";

const meanings = [
  ["gift", "present", "birthday", "get him", "get her", "turns 70"],
  ["fish", "angling", "rod", "lake"],
  ["invoice", "bill", "payment", "owe"],
];
const embedding = (text: string) => meanings.map((words) => words.filter((word) => text.toLowerCase().includes(word)).length);
const script = parseChatScript({
  rules: [{ id: "find", when: { last_human: "^find skill (.+)", step: 0 }, tool_calls: [{ name: "search_skills", args: { query: "{{match.1}}", kind: "skills", limit: 2 } }] }],
  fallback: { reply: "ok" },
});
const request = "my dad turns 70 and likes fishing, what should I get him";
const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nbody\n`;

let embeddings: EmbeddingsServer;
let project: ProjectFixture;
let server: AgentServer;
let client: Client;
const calls: RecordedCall[] = [];

beforeAll(async () => {
  embeddings = await startEmbeddingsServer(embedding);
  project = await makeProjectFixture({
    script: "rules: []\n",
    config: ["skills:", "  listing: compact", "  relevant_limit: 1", "  relevant_named_limit: 0", "search:", "  embeddings:", "    provider: openai-compatible", "    model: stand-in", `    base_url: ${embeddings.baseUrl}`, "    weight: 0.7", "sandbox:", "  warm_pool_size: 0"],
    files: {
      "skills/custom/gift-ideas/SKILL.md": skillFile("gift-ideas", "Suggest presents for a birthday or an anniversary within a budget."),
      "skills/custom/fishing-log/SKILL.md": skillFile("fishing-log", "Keep a log of fishing trips: the lake, the rod, what was caught and the weather."),
      "skills/custom/invoice-chaser/SKILL.md": skillFile("invoice-chaser", "Draft polite reminders for an unpaid invoice."),
    },
  });
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => new RecordingModel(script, calls) } });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  client = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await embeddings?.close();
  project?.cleanup();
});

async function turn(content: string): Promise<{ messages: Message[]; sent: string[] }> {
  const before = calls.length;
  const values = (await client.runs.wait(null, "lead_agent", { input: { messages: [{ type: "human", content }] } })) as { messages: Message[] };
  return { messages: values.messages, sent: calls.slice(before).map((call) => String(call.messages.at(-1)?.content)) };
}

describe("skill search with an embeddings endpoint", { timeout: 120_000 }, () => {
  it("offers with the message the skill found by meaning, and search_skills puts it first", async () => {
    embeddings.requests.length = 0;
    const offered = await turn(request);
    expect(offered.sent[0]).toContain("- gift-ideas (/mnt/skills/custom/gift-ideas/SKILL.md)");
    expect(offered.sent[0]).not.toContain("fishing-log");
    expect(embeddings.requests.flatMap((entry) => entry.input ?? [])).toContain(request);

    const { messages } = await turn(`find skill ${request}`);
    const result = JSON.parse(String(messages.find((message) => message.type === "tool" && message.name === "search_skills")?.content)) as { skills: { identity: string }[] };
    expect(result.skills.map((skill) => skill.identity)).toEqual(["custom:gift-ideas", "custom:fishing-log"]);
  });

  it("offers by keywords alone when the endpoint fails", async () => {
    embeddings.failNext();
    const offered = await turn(`${request}!`);
    expect(offered.sent[0]).toContain("- fishing-log (/mnt/skills/custom/fishing-log/SKILL.md)");
    expect(offered.sent[0]).not.toContain("gift-ideas");
  });
});
