// Compact skill listing through the LangGraph SDK against a real agent server: the system prompt
// names no skill and stays byte-identical across the turns of a thread, whatever the messages;
// each new user message is offered the skills that match it after its own text (stored once, so
// re-sent history is byte-identical too); the model reads what it was offered; search_skills,
// read_file, view_skill and slash commands reach every skill, offered or not.
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { parseChatScript } from "@thinktank/models";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, inspectPrompt, type AgentServer } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";
import { RecordingModel, type RecordedCall as Call } from "./support/recording-model.js";

const script = parseChatScript({
  rules: [
    { id: "read-offered", when: { last_human: String.raw`^please [\s\S]*<relevant_skills>[\s\S]*?\((/mnt/skills/\S+?/SKILL\.md)\)`, step: 0 }, tool_calls: [{ name: "read_file", args: { path: "{{match.1}}" } }] },
    { id: "find", when: { last_human: "^find (.+)", step: 0 }, tool_calls: [{ name: "search_skills", args: { query: "{{match.1}}", kind: "skills", limit: 1 } }] },
    { id: "read-found", when: { last_tool_name: "search_skills" }, tool_calls: [{ name: "read_file", args: { path: "{{lastToolResult.json.skills[0].location}}" } }] },
    { id: "read-result", when: { last_tool_name: "read_file" }, reply: "Following: {{lastToolResult}}" },
    { id: "become", when: { last_human: String.raw`^become (\S+)`, step: 0 }, tool_calls: [{ name: "view_skill", args: { name: "{{match.1}}" } }] },
    { id: "specialist", when: { last_tool_name: "view_skill" }, reply: "specialist: {{lastToolResult}}" },
  ],
  fallback: { reply: "seen: {{lastHuman}}" },
});

const skill = (name: string, description: string, body: string, extra = "") => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n${body}\n`;
const day = new Date("2026-05-04T09:30:00Z");

let project: ProjectFixture;
let server: AgentServer;
let client: Client;
const calls: Call[] = [];

beforeAll(async () => {
  project = await makeProjectFixture({
    script: "rules: []\n",
    config: ["skills:", "  listing: compact", "sandbox:", "  warm_pool_size: 0"],
    extensions: { skills: { "custom:old-report": { enabled: false } } },
    files: {
      "skills/public/pdf/SKILL.md": skill("pdf", "Fill in and merge PDF forms. Use for any PDF file.", "PDF-BODY: use pypdf to merge."),
      "skills/custom/brand-kit/SKILL.md": skill("brand-kit", "Apply the house look to slides and posters: colours, type and logo.", "BRAND-BODY: navy and Inter."),
      "skills/custom/release-notes/SKILL.md": skill("release-notes", "Write release notes from merged pull requests.", "RELEASE-BODY: group by feature."),
      "skills/custom/old-report/SKILL.md": skill("old-report", "Write the quarterly board report the old way.", "OLD-BODY"),
      "plugins/installed/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales", description: "Sales" }),
      "plugins/installed/sales/skills/call-prep/SKILL.md": skill("call-prep", "Prepare for a sales call: account context, attendees and an agenda.", "CALL-PREP-BODY: research the account first."),
      "plugins/installed/sales/skills/forecast/SKILL.md": skill("forecast", "Build a weighted revenue forecast for the quarter.", "FORECAST-BODY"),
      "plugins/installed/sales/commands/pipeline.md": "---\ndescription: Review the open pipeline by stage and flag stalled deals\nargument-hint: \"[stage]\"\n---\nReview the pipeline at stage $1.\n",
    },
  });
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  server = await buildAgentServer(config, { logger: false, clock: () => day, prepare: { createModel: () => new RecordingModel(script, calls) } });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  client = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  project?.cleanup();
});

/** Runs one user message on a thread; returns the thread's messages and the model calls it made. */
async function turn(threadId: string, content: string): Promise<{ messages: Message[]; calls: Call[] }> {
  const before = calls.length;
  const values = (await client.runs.wait(threadId, "lead_agent", { input: { messages: [{ type: "human", content }] } })) as { messages: Message[] };
  return { messages: values.messages, calls: calls.slice(before) };
}

const names = ["pdf", "brand-kit", "release-notes", "call-prep", "forecast"];

describe("compact skill listing", { timeout: 120_000 }, () => {
  it("keeps the system prompt byte-identical across three turns with different messages, and re-sent history too", async () => {
    const thread = await client.threads.create();
    const first = await turn(thread.thread_id, "please get me ready for my sales call with Acme tomorrow");
    const second = await turn(thread.thread_id, "please merge these two PDF forms into one");
    const third = await turn(thread.thread_id, "thanks, that is all for today");
    const all = [...first.calls, ...second.calls, ...third.calls];
    expect(all.length).toBe(5);
    for (const call of all) expect(call.system).toBe(all[0]?.system);
    // Each call's conversation starts with exactly what the previous call was sent (provider prefix caching).
    for (let index = 1; index < all.length; index++) {
      const previous = all[index - 1] as Call;
      expect(JSON.stringify(all[index]?.messages.slice(0, previous.messages.length))).toBe(JSON.stringify(previous.messages));
    }
    const system = all[0]?.system ?? "";
    for (const name of names) expect(system).not.toContain(name);
    expect(system).toContain("5 are installed");
    expect(all[0]?.tools).toEqual(expect.arrayContaining(["search_skills", "view_skill", "read_file"]));

    // The model saw the message with what it was offered after it; it read the offered skill.
    const seen = first.calls[0]?.messages.at(-1)?.content as string;
    expect(seen.startsWith("please get me ready for my sales call with Acme tomorrow\n\n<relevant_skills>\n")).toBe(true);
    expect(seen).toContain("- call-prep (/mnt/skills/plugins/sales/call-prep/SKILL.md): Prepare for a sales call: account context, attendees and an agenda.");
    expect(first.messages.at(-1)?.content).toMatch(/^Following: ---\nname: call-prep\n[\s\S]*CALL-PREP-BODY: research the account first\.\n$/);
    expect(second.messages.at(-1)?.content).toMatch(/^Following: ---\nname: pdf\n[\s\S]*PDF-BODY: use pypdf to merge\.\n$/);
    expect(third.messages.at(-1)?.content).toBe("seen: thanks, that is all for today");

    // The stored messages are as the user wrote them; what each was offered is stored beside, once.
    const humans = third.messages.filter((message) => message.type === "human");
    expect(humans.map((message) => message.content)).toEqual(["please get me ready for my sales call with Acme tomorrow", "please merge these two PDF forms into one", "thanks, that is all for today"]);
    const stored = humans.map((message) => (message.additional_kwargs as { skill_context?: { skills: { identity: string; location: string }[] } }).skill_context);
    expect(stored[0]?.skills[0]).toEqual({ identity: "plugin:sales:call-prep", name: "call-prep", description: "Prepare for a sales call: account context, attendees and an agenda.", location: "/mnt/skills/plugins/sales/call-prep/SKILL.md" });
    expect(stored[1]?.skills[0]?.identity).toBe("public:pdf");
    expect(stored[2]).toEqual({ skills: [], commands: [] });
  });

  it("offers the commands the skill list does not show, and a slash command still runs", async () => {
    const thread = await client.threads.create();
    const offered = await turn(thread.thread_id, "which deals are stalled in the open pipeline?");
    expect(offered.calls[0]?.messages.at(-1)?.content).toContain("Slash commands the user could run for it:\n- /sales:pipeline [stage]: Review the open pipeline by stage and flag stalled deals");
    const command = await turn(thread.thread_id, "/sales:pipeline negotiation");
    expect(command.calls[0]?.messages.at(-1)?.content).toMatch(/^Review the pipeline at stage negotiation\./);
  });

  it("leaves nothing unreachable: search_skills finds a skill no message offered, read_file and view_skill load it; never a disabled one", async () => {
    const thread = await client.threads.create();
    const found = await turn(thread.thread_id, "find release notes from merged pull requests");
    const search = found.messages.find((message) => message.type === "tool" && message.name === "search_skills");
    expect(JSON.parse(search?.content as string)).toEqual({ skills: [{ identity: "custom:release-notes", description: "Write release notes from merged pull requests.", location: "/mnt/skills/custom/release-notes/SKILL.md" }] });
    expect(found.messages.at(-1)?.content).toMatch(/^Following: ---\nname: release-notes\n[\s\S]*RELEASE-BODY: group by feature\.\n$/);
    const view = await turn(thread.thread_id, "become forecast");
    expect(view.messages.at(-1)?.content).toMatch(/^specialist: Switched to the specialist context of skill forecast \(plugin:sales:forecast\)/);
    const disabled = await turn((await client.threads.create()).thread_id, "find the quarterly board report the old way");
    const none = disabled.messages.find((message) => message.type === "tool" && message.name === "search_skills");
    expect(JSON.stringify(JSON.parse(none?.content as string))).not.toContain("old-report");
  });

  it("full listing lists every skill and command in the system prompt and attaches nothing; auto picks by tokens", async () => {
    const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
    const full = await inspectPrompt(config, { listing: "full", mode: "code", now: day, message: "please get me ready for my sales call" });
    expect(full.skillListing).toEqual({ mode: "full", reason: "skills.listing is full" });
    for (const name of names) expect(full.systemPrompt).toContain(`<name>${name}</name>`);
    expect(full.systemPrompt).toContain("/sales:pipeline [stage]: Review the open pipeline by stage and flag stalled deals");
    expect(full.messageContext).toBe("");
    expect(full.tools.map((tool) => tool.name)).not.toContain("search_skills");
    const compact = await inspectPrompt(config, { mode: "code", now: day, message: "please get me ready for my sales call" });
    expect(compact.messageContext).toContain("(/mnt/skills/plugins/sales/call-prep/SKILL.md)");
    expect(compact.tokens.total).toBe(compact.tokens.systemPrompt + compact.tokens.tools + compact.tokens.messageContext);
    expect(compact.tokens.systemPrompt).toBeLessThan(full.tokens.systemPrompt);
    const auto = await inspectPrompt({ ...config, skills: { ...config.skills, listing: "auto", auto_threshold_tokens: 100_000 } }, { mode: "code", now: day });
    expect(auto.skillListing.mode).toBe("full");
    expect(auto.skillListing.reason).toMatch(/^auto: listing 5 skills, 6 slash commands and 1 sub-agent costs \d+ tokens, not more than skills.auto_threshold_tokens \(100000\)$/);
    const small = await inspectPrompt({ ...config, skills: { ...config.skills, listing: "auto", auto_threshold_tokens: 10 } }, { mode: "code", now: day });
    expect(small.skillListing.mode).toBe("compact");
  });
});
