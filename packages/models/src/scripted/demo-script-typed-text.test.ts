import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { defaultChatScript } from "./default-chat-script.js";
import { ScriptedChatModel } from "./scripted-chat-model.js";

// The agent's tools the demo script drives, bound as the agent binds them.
const agentTools = ["read_file", "ls", "request_human_input"].map((name) =>
  tool(async () => "", { name, description: name, schema: { type: "object", properties: { path: { type: "string" } } } }),
);
const demo = () => new ScriptedChatModel({ script: defaultChatScript }).bindTools(agentTools);

/** A user message replaced by a slash command's expansion, as the agent's commands step stores it. */
function expanded(typed: string, expansion: string): HumanMessage {
  return new HumanMessage({ content: expansion, additional_kwargs: { slash_command: { kind: "command", name: "call-prep", invocation: "/sales:call-prep", typed: "/sales:call-prep", original: typed } } });
}

// Words a plugin command or skill really contains: "open questions," once made the demo call
// read_file("questions,") and the run end in INVALID_PATH.
const commandBody = "# Call prep\n\nPrepare for the call with $ARGUMENTS. List the open questions, then read the account notes and ask me nothing.";

describe("the demo script takes instructions only from what the user typed", () => {
  it("answers an expanded slash command by naming it, calling no tool for words inside the command", async () => {
    const answer = await demo().invoke([expanded("/sales:call-prep Acme", commandBody.replace("$ARGUMENTS", "Acme"))]);
    expect(answer.tool_calls).toEqual([]);
    expect(answer.content).toContain("You ran /sales:call-prep Acme: the agent expanded it");
    expect(answer.response_metadata.scripted_rule).toBe("slash-command");
  });

  it("also when the user's arguments hold a demo phrase: the command is the instruction", async () => {
    const answer = await demo().invoke([expanded("/sales:call-prep open questions", commandBody)]);
    expect(answer.tool_calls).toEqual([]);
  });

  it("ignores the relevant-skills block the agent appends after the user's words", async () => {
    const block = "<relevant_skills>\nInstalled skills that may fit this message (read a skill's SKILL.md at its location before using it):\n- call-prep (/mnt/skills/plugins/sales/call-prep/SKILL.md): List the open questions.\n</relevant_skills>";
    const fallback = await demo().invoke([new HumanMessage(`what can you do\n\n${block}`)]);
    expect(fallback.tool_calls).toEqual([]);
    expect(fallback.response_metadata.scripted_rule).toBe("fallback");
    const read = await demo().invoke([new HumanMessage(`read /mnt/skills/public/pdf/SKILL.md\n\n${block}`)]);
    expect(read.tool_calls).toMatchObject([{ name: "read_file", args: { path: "/mnt/skills/public/pdf/SKILL.md" } }]);
    const parts = await demo().invoke([new HumanMessage({ content: [{ type: "text", text: "list /mnt/skills" }, { type: "text", text: block }] })]);
    expect(parts.tool_calls).toMatchObject([{ name: "ls", args: { path: "/mnt/skills" } }]);
  });

  it("ignores the upload note the agent appends before the relevant-skills block", async () => {
    const note = "<uploaded_files>\nFiles the user uploaded with this message (read-only; read a document's text version):\n- /mnt/user-data/uploads/q3.csv (12 bytes, text/csv)\n</uploaded_files>";
    const skills = "<relevant_skills>\nInstalled skills that may fit this message:\n- xlsx (/mnt/skills/public/xlsx/SKILL.md): Spreadsheets.\n</relevant_skills>";
    const read = await demo().invoke([new HumanMessage(`read /mnt/user-data/uploads/q3.csv\n\n${note}\n\n${skills}`)]);
    expect(read.tool_calls).toMatchObject([{ name: "read_file", args: { path: "/mnt/user-data/uploads/q3.csv" } }]);
    const alone = await demo().invoke([new HumanMessage(`list /mnt/user-data/uploads\n\n${note}`)]);
    expect(alone.tool_calls).toMatchObject([{ name: "ls", args: { path: "/mnt/user-data/uploads" } }]);
    const parts = await demo().invoke([new HumanMessage({ content: [{ type: "text", text: "list /mnt/skills" }, { type: "text", text: note }] })]);
    expect(parts.tool_calls).toMatchObject([{ name: "ls", args: { path: "/mnt/skills" } }]);
  });

  it("still follows what the user typed", async () => {
    expect((await demo().invoke([new HumanMessage("open /mnt/user-data/uploads/notes.txt")])).tool_calls).toMatchObject([{ name: "read_file", args: { path: "/mnt/user-data/uploads/notes.txt" } }]);
    expect((await demo().invoke([new HumanMessage("ask me something")])).tool_calls).toMatchObject([{ name: "request_human_input" }]);
  });
});
