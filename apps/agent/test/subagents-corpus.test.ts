// The lead delegates to a real plugin's agent (brand-voice's quality-assurance from the corpus,
// installed as a plugin): the sub-agent's model call gets the agent file's body as its system
// prompt and only the tools its `tools:` list maps to; its model is `haiku` as subagents.models
// maps it; its answer is the lead's tool result, and nothing else of the sub-agent reaches the lead.
import fs from "node:fs";
import path from "node:path";
import { corpusDir, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { useSuiteProject } from "./support/suite-agent.js";

const plugin = "knowledge-work-plugins/partner-built/brand-voice";
/** A phrase of agents/quality-assurance.md's body (not of its description, which the lead's prompt lists). */
const bodyPhrase = "specialized quality assurance agent for the Brand Voice Plugin";

// Both models are scripted: the lead's, and `small` (what haiku maps to), which only the sub-agent reaches.
const leadScript = `
rules:
  - when: { user_typed: '^check the draft', step: 0 }
    tool_calls: [{ name: task, args: { subagent_type: quality-assurance, description: check the draft, prompt: "Check this draft against the brand: We make tides predictable." } }]
  - when: { after_tool: true }
    reply: "LEAD: {{lastToolResult}}"
  - when: { system: "${bodyPhrase}" }
    reply: "WRONG: the sub-agent ran on the lead's model"
fallback:
  reply: "lead fallback"
`;
const smallScript = `
rules:
  - when: { system: "${bodyPhrase}", tool_available: write_file }
    reply: "WRONG: write_file was bound"
  - when: { system: "${bodyPhrase}", tool_available: view_skill }
    reply: "WRONG: view_skill was bound"
  - when: { system: "${bodyPhrase}", tool_available: task }
    reply: "WRONG: task was bound"
  - when: { system: "${bodyPhrase}", tool_available: read_file, step: 0 }
    reply: "QA-VERDICT: compliant, read_file and bash bound"
fallback:
  reply: "WRONG: the small model did not see the agent's body"
`;

const configYaml = ["data_dir: data", "log:", "  level: warn", "models:", "  default: scripted", "  providers:", "    scripted:", "      provider: scripted", "      script: script.yaml", "    small:", "      provider: scripted", "      script: small.yaml", "subagents:", "  models:", "    haiku: small", ""].join("\n");

/** The plugin's files as the project's installed plugin, without its .mcp.json (remote servers this machine cannot reach). */
function pluginFiles(): Record<string, string> {
  const root = path.join(corpusDir(), plugin);
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === ".mcp.json") continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.join("plugins/installed/brand-voice", path.relative(root, file))] = fs.readFileSync(file, "utf8");
  }
  return files;
}

type Message = { type: string; content: unknown; status?: string; tool_calls?: { id: string; name: string }[] };
type Values = { messages: Message[]; delegations?: { agent: string; status: string; tool_call_id: string }[] };

describe("delegating to a corpus plugin's agent", { ...needs("corpus"), timeout: 300_000 }, () => {
  const suite = useSuiteProject(() => ({ script: leadScript, files: { "config.yaml": configYaml, "small.yaml": smallScript, ...pluginFiles() } }));

  it("the sub-agent gets the agent's body as its system prompt, only its tools and its mapped model; the lead's history holds one call and one result", async () => {
    const body = fs.readFileSync(path.join(corpusDir(), plugin, "agents/quality-assurance.md"), "utf8");
    expect(body).toContain(bodyPhrase);
    const thread = await suite.client.threads.create();
    const values = (await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: { messages: [{ type: "human", content: "check the draft" }] } })) as Values;
    expect(values.messages.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"]);
    const [, call, result, answer] = values.messages;
    expect(call?.tool_calls?.map((entry) => entry.name)).toEqual(["task"]);
    expect(result).toMatchObject({ status: "success", content: expect.stringMatching(/^QA-VERDICT: compliant, read_file and bash bound\n\n\[sub-agent plugin:brand-voice:quality-assurance: /) });
    expect(String(answer?.content)).toMatch(/^LEAD: QA-VERDICT: compliant/);
    // Nothing of the sub-agent's own conversation (its prompt, its system prompt) is in the lead's history.
    expect(JSON.stringify(values.messages)).not.toContain(bodyPhrase);
    expect(values.delegations).toEqual([expect.objectContaining({ agent: "plugin:brand-voice:quality-assurance", status: "ok", tool_call_id: call?.tool_calls?.[0]?.id })]);
  });
});
