import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ScriptedChatModel } from "@thinktank/models";
import type { SlashCommandResolution } from "@thinktank/plugins";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../request/request-context.js";
import { createLeaveSkillTool } from "../skill-context/skill-switch-tools.js";
import { buildLeadAgentGraph } from "./build-lead-agent-graph.js";

const started: string[] = [];
const slowTool = (name: string) =>
  tool(
    async ({ text }: { text: string }) => {
      started.push(`${name}:start`);
      // Not a wait for anything: the tool takes a while, so that two calls run side by side overlap (both start before either ends).
      await new Promise((resolve) => setTimeout(resolve, 50));
      started.push(`${name}:end`);
      return `${name} got ${text}`;
    },
    { name, description: name, schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  );
const enterTool = tool(async ({ name }: { name: string }) => [`entered ${name}`, { activeSkill: `public:${name}` }], {
  name: "view_skill",
  description: "enter",
  schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  responseFormat: "content_and_artifact",
});

const model = new ScriptedChatModel({
  script: {
    rules: [
      { when: { last_human: "both", step: 0 }, tool_calls: [{ name: "alpha", args: { text: "a" } }, { name: "beta", args: { text: "b" } }] },
      { when: { last_human: "^enter (\\w+)", step: 0 }, tool_calls: [{ name: "view_skill", args: { name: "{{match.1}}" } }] },
      { when: { last_human: "^leave", step: 0, tool_available: "leave_skill" }, tool_calls: [{ name: "leave_skill", args: {} }] },
      { when: { system: "SPECIALIST", tool_available: "skill_tool" }, reply: "specialist speaking" },
      { when: { last_tool_name: "leave_skill" }, reply: "router again" },
      { when: { last_human: "EXPANDED" }, reply: "the model saw: {{lastHuman}}" },
      { when: { after_tool: true }, reply: "{{toolResult.alpha}} / {{toolResult.beta}}" },
    ],
    fallback: { reply: "router speaking" },
  },
});

const resolveCommand = (message: string): SlashCommandResolution => {
  if (message.startsWith("/known")) {
    return { kind: "expanded", text: `EXPANDED ${message.slice(7)}`, command: { kind: "command", name: "known", invocation: "/p:known", plugin: "p", typed: "/known", arguments: { raw: message.slice(7), positional: [] } } };
  }
  if (message.startsWith("/")) return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: "unknown command /knwn; did you mean /p:known?", suggestions: ["/p:known"] } };
  return { kind: "none" };
};

const context: RequestContext = {
  model,
  modelName: "scripted",
  systemPrompt: "ROUTER",
  tools: [slowTool("alpha"), slowTool("beta"), enterTool],
  surfaceFor: (skill) => (skill === "public:gone" ? undefined : { systemPrompt: `SPECIALIST for ${skill}`, tools: [slowTool("skill_tool"), createLeaveSkillTool()], skill }),
  resolveCommand,
};
const graph = buildLeadAgentGraph(context, new SqliteSaver(new Database(":memory:")));
const human = (content: string) => ({ messages: [{ type: "human", content }] });

describe("graph lead_agent", () => {
  it("runs the tool calls of one model message in parallel and answers from both results", async () => {
    started.length = 0;
    const result = await graph.invoke(human("call both") as never, { configurable: { thread_id: "parallel" } });
    expect(started.slice(0, 2)).toEqual(["alpha:start", "beta:start"]);
    expect(result.messages.at(-1)?.content).toBe("alpha got a / beta got b");
    expect(result.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "ai"]);
  });

  it("uses the active skill's surface (prompt and tools) when activeSkill is set, and the router's otherwise", async () => {
    const router = await graph.invoke(human("hello") as never, { configurable: { thread_id: "router" } });
    expect(router.messages.at(-1)?.content).toBe("router speaking");
    const specialist = await graph.invoke({ ...human("hello"), activeSkill: "public:notes" } as never, { configurable: { thread_id: "skill" } });
    expect(specialist.messages.at(-1)?.content).toBe("specialist speaking");
    expect(specialist.activeSkill).toBe("public:notes");
  });

  it("switches context when view_skill answers, and back when leave_skill does", async () => {
    const config = { configurable: { thread_id: "switch" } };
    const entered = await graph.invoke(human("enter notes") as never, config);
    expect(entered.activeSkill).toBe("public:notes");
    expect(entered.messages.at(-1)?.content).toBe("specialist speaking");
    const left = await graph.invoke(human("leave now") as never, config);
    expect(left.activeSkill).toBeNull();
    expect(left.messages.at(-1)?.content).toBe("router again");
  });

  it("drops an active skill that is gone and answers in the router context", async () => {
    const result = await graph.invoke({ ...human("hello"), activeSkill: "public:gone" } as never, { configurable: { thread_id: "gone" } });
    expect(result.activeSkill).toBeNull();
    expect(result.messages.at(-1)?.content).toBe("router speaking");
  });

  it("expands a slash command before the model sees it, recording which command ran on the same message", async () => {
    const result = await graph.invoke(human("/known the args") as never, { configurable: { thread_id: "command" } });
    const [first, answer] = result.messages;
    expect(result.messages).toHaveLength(2);
    expect(first?.content).toBe("EXPANDED the args");
    expect(first?.additional_kwargs.slash_command).toMatchObject({ invocation: "/p:known", typed: "/known", original: "/known the args" });
    expect(answer?.content).toBe("the model saw: EXPANDED the args");
  });

  it("answers an unknown command with its near matches and never calls the model", async () => {
    const result = await graph.invoke(human("/knwn x") as never, { configurable: { thread_id: "unknown" } });
    expect(result.messages.map((m) => m.getType())).toEqual(["human", "ai"]);
    expect(result.messages[1]?.content).toBe("unknown command /knwn; did you mean /p:known?");
    expect(result.messages[1]?.additional_kwargs.slash_command_error).toEqual({ code: "COMMAND_NOT_FOUND", suggestions: ["/p:known"] });
    expect((result.messages[1]?.response_metadata as Record<string, unknown>).scripted_rule).toBeUndefined();
  });

  it("stores what a new message is offered once, shows it only to the model, and renders nothing from a malformed one", async () => {
    let asked = 0;
    const offering = buildLeadAgentGraph(
      {
        ...context,
        skillContextFor: (message) => {
          asked++;
          return { skills: [{ identity: "public:notes", name: "notes", description: `Notes <for> ${message.length}`, location: "/mnt/skills/public/notes/SKILL.md" }], commands: [] };
        },
      },
      new SqliteSaver(new Database(":memory:")),
    );
    const config = { configurable: { thread_id: "offered" } };
    const first = await offering.invoke(human("EXPANDED hi") as never, config);
    expect(first.messages[0]?.content).toBe("EXPANDED hi");
    expect(first.messages[0]?.additional_kwargs.skill_context).toEqual({ skills: [expect.objectContaining({ identity: "public:notes" })], commands: [] });
    expect(first.messages.at(-1)?.content).toBe(
      "the model saw: EXPANDED hi\n\n<relevant_skills>\nInstalled skills that may fit this message (read a skill's SKILL.md at its location before using it; search_skills finds others):\n- notes (/mnt/skills/public/notes/SKILL.md): Notes &lt;for&gt; 11\n</relevant_skills>",
    );
    await offering.invoke(human("hello") as never, config);
    expect(asked).toBe(2);
    const forged = await offering.invoke({ messages: [{ type: "human", content: "EXPANDED forged", additional_kwargs: { skill_context: { skills: [{ name: 1 }], commands: "x" } } }] } as never, { configurable: { thread_id: "forged" } });
    expect(asked).toBe(2);
    expect(forged.messages.at(-1)?.content).toBe("the model saw: EXPANDED forged");
    // Further skills named without descriptions must be well-formed too.
    const badNames = await offering.invoke({ messages: [{ type: "human", content: "EXPANDED names", additional_kwargs: { skill_context: { skills: [], moreSkills: [{ name: "x", location: 3 }], commands: [] } } }] } as never, { configurable: { thread_id: "bad-names" } });
    expect(badNames.messages.at(-1)?.content).toBe("the model saw: EXPANDED names");
    const names = await offering.invoke({ messages: [{ type: "human", content: "EXPANDED names", additional_kwargs: { skill_context: { skills: [], moreSkills: [{ identity: "custom:x", name: "x", location: "/mnt/skills/custom/x/SKILL.md" }], commands: [] } } }] } as never, { configurable: { thread_id: "names" } });
    expect(names.messages.at(-1)?.content).toContain("\n/mnt/skills/custom/: x\n");
    // Sub-agents offered, described or named, must be well-formed too.
    for (const forgedAgents of [{ agents: [{ subagentType: 5, description: "x" }] }, { agents: "x" }, { moreAgents: [{ identity: "custom:a" }] }]) {
      const bad = await offering.invoke({ messages: [{ type: "human", content: "EXPANDED agents", additional_kwargs: { skill_context: { skills: [], commands: [], ...forgedAgents } } }] } as never, { configurable: { thread_id: `bad-agents-${JSON.stringify(forgedAgents).length}` } });
      expect(bad.messages.at(-1)?.content).toBe("the model saw: EXPANDED agents");
    }
    const agents = await offering.invoke(
      { messages: [{ type: "human", content: "EXPANDED agents", additional_kwargs: { skill_context: { skills: [], commands: [], agents: [{ identity: "custom:a", subagentType: "a", description: "Does <x>." }], moreAgents: [{ identity: "custom:b", subagentType: "b" }] } } }] } as never,
      { configurable: { thread_id: "agents" } },
    );
    expect(agents.messages.at(-1)?.content).toContain("\n- a: Does &lt;x&gt;.\nFurther sub-agents that may fit, by subagent_type (search_skills with kind agents describes one):\nb\n</relevant_skills>");
  });
});
