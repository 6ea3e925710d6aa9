// The shipped demo model (the scripted provider without a script file) against a real agent server:
// the README's slash-command example must answer, never act on words inside the command's text.
// Before, `/sales:call-prep Acme` ended in INVALID_PATH: the demo's `open X` rule matched "open
// questions," inside the expanded command and called read_file("questions,").
import { describe, expect, it } from "vitest";
import { useListeningAgentServer } from "./support/listening-agent-server.js";

type Message = { type: string; content: unknown; tool_calls?: { name: string }[]; additional_kwargs?: Record<string, unknown> };

describe("the demo model with a plugin's slash command", () => {
  const agent = useListeningAgentServer({
    configYaml: "data_dir: data\nlog:\n  level: warn\nmodels:\n  providers:\n    scripted:\n      provider: scripted\n",
    files: {
      "skills/public/.keep": "",
      "plugins/installed/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales", version: "1.0.0", description: "Sales tools" }),
      "plugins/installed/sales/commands/call-prep.md":
        "---\ndescription: Prepare for a sales call\nargument-hint: <company>\n---\nPrepare me for my call with $ARGUMENTS.\n\nList the open questions, read the last notes, cat the deal history and ask me what matters.\n",
    },
  });

  async function run(content: string): Promise<Message[]> {
    const thread = (await (await fetch(`${agent.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const response = await fetch(`${agent.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ role: "user", content }] } }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { messages: Message[] }).messages;
  }

  it("answers /sales:call-prep Acme by naming the command, calling no tool for the words in it", async () => {
    const messages = await run("/sales:call-prep Acme");
    expect(messages.map((message) => message.type)).toEqual(["human", "ai"]);
    expect(messages[0]?.content).toContain("List the open questions");
    expect(messages[0]?.additional_kwargs?.slash_command).toMatchObject({ original: "/sales:call-prep Acme" });
    expect(messages[1]?.tool_calls ?? []).toEqual([]);
    expect(messages[1]?.content).toContain("You ran /sales:call-prep Acme: the agent expanded it");
  });

  it("still follows what the user typed", async () => {
    const messages = await run("list /mnt/skills");
    expect(messages[1]?.tool_calls?.map((call) => call.name)).toEqual(["ls"]);
  });
});
