// Sub-agents in the lead's request (issue 27, "flat context at scale") against a real agent server
// through the LangGraph SDK: compact listing keeps the system prompt byte-identical across turns
// while each message is offered the agents that fit it (stored on the message, so re-sent history
// is byte-identical too); search_skills kind "agents" finds any enabled agent by task or name and
// never a disabled one; full listing names every enabled agent in <subagent_system> after the skills
// and commands sections; subagents.enabled false leaves no trace of agents.
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { parseChatScript } from "@thinktank/models";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, inspectPrompt, type AgentServer } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";
import { RecordingModel, type RecordedCall as Call } from "./support/recording-model.js";

const script = parseChatScript({
  rules: [{ id: "find", when: { last_human: "^find agent (.+)", step: 0 }, tool_calls: [{ name: "search_skills", args: { query: "{{match.1}}", kind: "agents", limit: 50 } }] }],
  fallback: { reply: "seen: {{lastHuman}}" },
});

const agentFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\ntools: Read, Grep\n---\nYou are ${name}. BODY-OF-${name}\n`;
const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nbody\n`;
const day = new Date("2026-05-04T09:30:00Z");

let project: ProjectFixture;
let server: AgentServer;
let client: Client;
const calls: Call[] = [];

beforeAll(async () => {
  project = await makeProjectFixture({
    script: "rules: []\n",
    config: ["skills:", "  listing: compact", "sandbox:", "  warm_pool_size: 0"],
    extensions: { agents: { "custom:old-auditor": { enabled: false } }, users: { usr_notravel: { agents: { "custom:travel-planner": { enabled: false } } } } },
    files: {
      "skills/public/pdf/SKILL.md": skillFile("pdf", "Fill in and merge PDF forms. Use for any PDF file."),
      "skills/custom/brand-kit/SKILL.md": skillFile("brand-kit", "Apply the house look to slides and posters: colours, type and logo."),
      "agents/custom/travel-planner.md": agentFile("travel-planner", "Plans trips: flights, hotels and a day-by-day itinerary within a budget."),
      "agents/custom/old-auditor.md": agentFile("old-auditor", "Audits expense reports for receipts that break the travel policy."),
      "plugins/installed/security/.claude-plugin/plugin.json": JSON.stringify({ name: "security", description: "Security reviews" }),
      "plugins/installed/security/agents/code-reviewer.md": agentFile("code-reviewer", "Reviews code changes for injection, leaked secrets and unsafe deserialization. Use it before merging a pull request."),
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

async function turn(threadId: string | null, content: string): Promise<{ messages: Message[]; calls: Call[] }> {
  const before = calls.length;
  const payload = { input: { messages: [{ type: "human", content }] } };
  const values = (await (threadId === null ? client.runs.wait(null, "lead_agent", payload) : client.runs.wait(threadId, "lead_agent", payload))) as { messages: Message[] };
  return { messages: values.messages, calls: calls.slice(before) };
}

describe("sub-agents in the lead's request", { timeout: 120_000 }, () => {
  it("compact: the system prompt names no agent and stays byte-identical across turns while each message is offered the agents that fit it", async () => {
    const thread = await client.threads.create();
    const first = await turn(thread.thread_id, "plan a trip to Lisbon with flights and a hotel for three days");
    const second = await turn(thread.thread_id, "review the code changes in my pull request for leaked secrets before merging");
    const third = await turn(thread.thread_id, "thanks, that is all");
    const all = [...first.calls, ...second.calls, ...third.calls];
    expect(all).toHaveLength(3);
    for (const call of all) expect(call.system).toBe(all[0]?.system);
    for (let index = 1; index < all.length; index++) {
      const previous = all[index - 1] as Call;
      expect(JSON.stringify(all[index]?.messages.slice(0, previous.messages.length))).toBe(JSON.stringify(previous.messages));
    }
    const system = all[0]?.system ?? "";
    expect(system).toContain("<subagent_system>");
    expect(system).toContain("3 sub-agents are installed");
    expect(system).toContain('search_skills(query, kind: "agents")');
    expect(system.indexOf("<subagent_system>")).toBeGreaterThan(system.indexOf("<skill_system>"));
    for (const name of ["travel-planner", "code-reviewer", "old-auditor"]) expect(system).not.toContain(name);

    expect(first.calls[0]?.messages.at(-1)?.content).toContain("Sub-agents that could take it on (task with this subagent_type):\n- travel-planner: Plans trips: flights, hotels and a day-by-day itinerary within a budget.");
    expect(second.calls[0]?.messages.at(-1)?.content).toContain("\n- code-reviewer: Reviews code changes for injection, leaked secrets and unsafe deserialization.");
    expect(third.calls[0]?.messages.at(-1)?.content).toBe("thanks, that is all");
    const humans = third.messages.filter((message) => message.type === "human");
    const stored = humans.map((message) => (message.additional_kwargs as { skill_context?: { agents?: { identity: string }[] } }).skill_context);
    expect(stored[0]?.agents?.[0]).toEqual({ identity: "custom:travel-planner", subagentType: "travel-planner", description: "Plans trips: flights, hotels and a day-by-day itinerary within a budget." });
    expect(stored[1]?.agents?.[0]?.identity).toBe("plugin:security:code-reviewer");
    expect(stored[2]).toEqual({ skills: [], commands: [] });
  });

  it("search_skills kind agents finds an enabled agent by task or identity, never a disabled one", async () => {
    const found = async (query: string) => {
      const { messages } = await turn(null, `find agent ${query}`);
      const result = messages.find((message) => message.type === "tool" && message.name === "search_skills");
      return JSON.parse(result?.content as string) as { agents: { subagent_type: string; identity: string; description: string }[] };
    };
    expect((await found("flights and hotels for a trip")).agents[0]).toEqual({ subagent_type: "travel-planner", identity: "custom:travel-planner", description: "Plans trips: flights, hotels and a day-by-day itinerary within a budget." });
    expect((await found("plugin:security:code-reviewer")).agents[0]?.subagent_type).toBe("code-reviewer");
    const audit = await found("audit expense reports for receipts that break the travel policy");
    expect(audit.agents.map((agent) => agent.identity)).not.toContain("custom:old-auditor");
    const offered = await turn(null, "audit the expense reports for receipts that break the travel policy");
    expect(offered.calls[0]?.messages.at(-1)?.content).not.toContain("old-auditor");
  });

  it("full: <subagent_system> after the skills and commands sections names every enabled agent; subagents.enabled false leaves no trace", async () => {
    const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
    const full = await inspectPrompt(config, { listing: "full", message: "plan a trip" });
    const section = /<subagent_system>[\s\S]*?<\/subagent_system>/.exec(full.systemPrompt)?.[0] ?? "";
    expect(section.split("\n").filter((line) => line.startsWith("- ")).map((line) => line.split(":")[0])).toEqual(["- general-purpose", "- code-reviewer", "- travel-planner"]);
    expect(full.systemPrompt.indexOf("<subagent_system>")).toBeGreaterThan(full.systemPrompt.indexOf("</skill_system>"));
    expect(full.messageContext).toBe("");
    // A user who switched an agent off (their overlay) shares the skills view but not the agents: theirs lists it not.
    const theirs = await inspectPrompt(config, { listing: "full", user: "usr_notravel" });
    expect(theirs.systemPrompt).not.toContain("travel-planner");
    expect(theirs.systemPrompt).toContain("- code-reviewer:");
    const compactTheirs = await inspectPrompt(config, { user: "usr_notravel", message: "plan a trip to Lisbon with flights and a hotel" });
    expect(compactTheirs.messageContext).not.toContain("travel-planner");
    expect(compactTheirs.systemPrompt).toContain("2 sub-agents are installed");

    const off = { ...config, subagents: { ...config.subagents, enabled: false } };
    for (const listing of ["full", "compact"] as const) {
      const inspection = await inspectPrompt(off, { listing, message: "plan a trip to Lisbon with flights and a hotel" });
      expect(inspection.systemPrompt).not.toContain("subagent");
      expect(inspection.messageContext).not.toContain("Sub-agents");
      const search = inspection.tools.find((tool) => tool.name === "search_skills");
      expect(JSON.stringify(search ?? {})).not.toContain("agents");
    }
  });
});
