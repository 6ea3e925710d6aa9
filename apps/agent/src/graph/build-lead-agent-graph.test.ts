import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ScriptedChatModel } from "@thinktank/models";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../request/request-context.js";
import { buildLeadAgentGraph } from "./build-lead-agent-graph.js";

const started: string[] = [];
const slowTool = (name: string) =>
  tool(
    async ({ text }: { text: string }) => {
      started.push(`${name}:start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      started.push(`${name}:end`);
      return `${name} got ${text}`;
    },
    { name, description: name, schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  );

const model = new ScriptedChatModel({
  script: {
    rules: [
      { when: { last_human: "both", step: 0 }, tool_calls: [{ name: "alpha", args: { text: "a" } }, { name: "beta", args: { text: "b" } }] },
      { when: { system: "SPECIALIST", tool_available: "skill_tool" }, reply: "specialist speaking" },
      { when: { after_tool: true }, reply: "{{toolResult.alpha}} / {{toolResult.beta}}" },
    ],
    fallback: { reply: "router speaking" },
  },
});

const context: RequestContext = {
  model,
  modelName: "scripted",
  systemPrompt: "ROUTER",
  tools: [slowTool("alpha"), slowTool("beta")],
  surfaceFor: (skill) => ({ systemPrompt: `SPECIALIST for ${skill}`, tools: [slowTool("skill_tool")] }),
};
const graph = buildLeadAgentGraph(context, new SqliteSaver(new Database(":memory:")));

describe("graph lead_agent", () => {
  it("runs the tool calls of one model message in parallel and answers from both results", async () => {
    started.length = 0;
    const result = await graph.invoke({ messages: [{ type: "human", content: "call both" }] } as never, { configurable: { thread_id: "parallel" } });
    expect(started.slice(0, 2)).toEqual(["alpha:start", "beta:start"]);
    expect(result.messages.at(-1)?.content).toBe("alpha got a / beta got b");
    expect(result.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "ai"]);
  });

  it("uses the active skill's surface (prompt and tools) when activeSkill is set, and the router's otherwise", async () => {
    const router = await graph.invoke({ messages: [{ type: "human", content: "hello" }] } as never, { configurable: { thread_id: "router" } });
    expect(router.messages.at(-1)?.content).toBe("router speaking");
    const specialist = await graph.invoke({ messages: [{ type: "human", content: "hello" }], activeSkill: "public:notes" } as never, { configurable: { thread_id: "skill" } });
    expect(specialist.messages.at(-1)?.content).toBe("specialist speaking");
    expect(specialist.activeSkill).toBe("public:notes");
  });
});
