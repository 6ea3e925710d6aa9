// Progressive disclosure through the LangGraph SDK against the agent server process: level 1 holds
// skill metadata only; level 2 is read on demand (read_file) or entered as a specialist context
// (view_skill) with the skill's scoped MCP and script tools and resources; leave_skill goes back.
import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { describe, expect, it } from "vitest";
import { useSuiteProject } from "./support/suite-agent.js";

const script = `
rules:
  - when: { last_human: "^what is the vacation policy", step: 0 }
    tool_calls: [{ name: read_file, args: { path: /mnt/skills/public/handbook/SKILL.md } }]
  - when: { last_tool_name: read_file, last_tool_result: "references/vacation.md", step: 1 }
    tool_calls: [{ name: read_file, args: { path: /mnt/skills/public/handbook/references/vacation.md } }]
  - when: { last_tool_name: read_file, step: 2 }
    reply: "Policy: {{lastToolResult}}"
  - when: { last_human: "^leak check", system: "HANDBOOK-BODY" }
    reply: "a skill body leaked into the prompt"
  - when: { last_human: "^leak check", system: "<description>Answers questions from the company handbook</description>" }
    reply: "metadata only"
  - when: { last_human: "^become ops", step: 0 }
    tool_calls: [{ name: view_skill, args: { name: ops } }]
  - when: { last_tool_name: view_skill, system: "OPS-PERSONA", tool_available: ops_echo }
    tool_calls:
      - { name: ops_echo, args: { message: pelican } }
      - { name: word_count, args: { text: "one two three" } }
      - { name: read_resource, args: { uri: "ops://runbook" } }
  - when: { last_tool_name: read_resource, system: "OPS-PERSONA", step: 2 }
    reply: "ops: {{toolResult.ops_echo}} | {{toolResult.word_count}} | {{toolResult.read_resource}}"
  - when: { last_human: "^docs resource", system: "OPS-PERSONA", step: 0 }
    tool_calls: [{ name: read_resource, args: { uri: "ops://features" } }]
  - when: { last_tool_name: read_resource, system: "OPS-PERSONA" }
    reply: "resource: {{lastToolResult}}"
  - when: { last_human: "^which tools", system: "OPS-PERSONA", tool_available: bash }
    reply: "the specialist has bash"
  - when: { last_human: "^which tools", system: "OPS-PERSONA", tool_available: search_tools }
    reply: "the specialist has its tools and the loaders, not bash"
  - when: { last_human: "^which tools", tool_available: ops_echo }
    reply: "the router has ops_echo"
  - when: { last_human: "^which tools", system: "<available_skills>", tool_available: bash }
    reply: "the router has bash, not ops_echo"
  - when: { last_human: "^leave", step: 0, tool_available: leave_skill }
    tool_calls: [{ name: leave_skill, args: {} }]
  - when: { last_tool_name: leave_skill, system: "<available_skills>" }
    reply: "back in the router"
fallback:
  reply: "fallback (system starts: {{lastHuman}})"
`;

const words = 'import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"words": len(args["text"].split())}))\n';

const suite = useSuiteProject({
  script,
  config: ["code_execution:", "  mode: code", "sandbox:", "  warm_pool_size: 0"],
  extensions: { mcpServers: { everything: referenceStdioEntry("server-everything") } },
  files: {
    "skills/public/handbook/SKILL.md": "---\nname: handbook\ndescription: Answers questions from the company handbook\n---\nHANDBOOK-BODY: for leave questions read references/vacation.md.\n",
    "skills/public/handbook/references/vacation.md": "Vacation is 30 days a year.",
    "skills/public/ops/SKILL.md": "---\nname: ops\ndescription: Operations specialist with its own tools\nallowed-tools: Read, mcp__everything__echo\n---\nOPS-PERSONA: you run operations. Check references/runbook.md first.\n",
    "skills/public/ops/references/runbook.md": "Runbook: restart the service.",
    "skills/public/ops/scripts/words.py": words,
    "skills/public/ops/tools.json": JSON.stringify({
      tools: [
        { server: "everything", tool: "echo", name: "ops_echo", description: "Echo a message (ops)" },
        {
          name: "word_count",
          description: "Count the words of a text",
          runtime: "python",
          script: "words.py",
          input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
          output_schema: { type: "object", properties: { words: { type: "integer" } }, required: ["words"] },
        },
      ],
    }),
    "skills/public/ops/resources.json": JSON.stringify({
      resources: [
        { uri: "ops://runbook", description: "The runbook", file: "references/runbook.md" },
        { uri: "ops://features", description: "The everything server's feature list", server: "everything", resource: "demo://resource/static/document/features.md" },
      ],
    }),
  },
});

type Message = { type: string; content: unknown; name?: string; status?: string };
const human = (content: string) => ({ input: { messages: [{ type: "human", content }] } });
async function run(threadId: string | null, text: string): Promise<Message[]> {
  const values = threadId === null ? await suite.client.runs.wait(null, "lead_agent", human(text)) : await suite.client.runs.wait(threadId, "lead_agent", human(text));
  return (values as { messages: Message[] }).messages;
}

describe("progressive disclosure over the LangGraph API", { timeout: 120_000 }, () => {
  it("level 1 holds names and descriptions only, never a skill's body", async () => {
    expect((await run(null, "leak check")).at(-1)?.content).toBe("metadata only");
  });

  it("reads a SKILL.md, then the file it points to, and answers from it (levels 2 and 3)", async () => {
    const messages = await run(null, "what is the vacation policy?");
    const reads = messages.filter((message) => message.type === "tool").map((message) => message.content);
    expect(reads).toHaveLength(2);
    expect(reads[0]).toContain("HANDBOOK-BODY");
    expect(reads[1]).toBe("Vacation is 30 days a year.");
    expect(messages.at(-1)?.content).toBe("Policy: Vacation is 30 days a year.");
  });

  it("view_skill switches to the specialist context with its scoped tools and resources, and leave_skill switches back", async () => {
    const thread = await suite.client.threads.create();
    expect((await run(thread.thread_id, "which tools do you have?")).at(-1)?.content).toBe("the router has bash, not ops_echo");

    const entered = await run(thread.thread_id, "become ops");
    expect(entered.at(-1)?.content).toBe('ops: Echo: pelican | {"words":3} | Runbook: restart the service.');
    expect(((await suite.client.threads.getState(thread.thread_id)).values as { activeSkill: string | null }).activeSkill).toBe("public:ops");
    // allowed-tools (Read, the echo tool) leaves bash out; the loaders and the skill's own tools stay.
    expect((await run(thread.thread_id, "which tools now?")).at(-1)?.content).toBe("the specialist has its tools and the loaders, not bash");
    const docs = await run(thread.thread_id, "docs resource please");
    expect(String(docs.at(-1)?.content)).toMatch(/^resource: [\s\S]*\S/);

    const left = await run(thread.thread_id, "leave the skill");
    expect(left.at(-1)?.content).toBe("back in the router");
    expect(((await suite.client.threads.getState(thread.thread_id)).values as { activeSkill: string | null }).activeSkill).toBeNull();
    expect((await run(thread.thread_id, "which tools do you have?")).at(-1)?.content).toBe("the router has bash, not ops_echo");
  });
});
