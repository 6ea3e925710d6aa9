import type { AIMessageChunk} from "@langchain/core/messages";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import type { ChatScript } from "./chat-script-types.js";
import { ScriptedChatModel } from "./scripted-chat-model.js";

const script: ChatScript = {
  rules: [
    { id: "weather", when: { last_human: "weather in (\\w+)", step: 0 }, tool_calls: [{ name: "get_weather", args: { city: "{{match.1}}", units: "metric" } }] },
    { id: "weather-answer", when: { last_tool_name: "get_weather", last_tool_result: "temp" }, reply: "It is {{lastToolResult.json.temp}} degrees in {{lastToolResult.json.city}}." },
    { id: "expert", when: { system: "You are a poet" }, reply: "Roses are red." },
    { id: "tools", when: { last_human: "what tools", tool_available: "get_weather" }, reply: "I can check the weather." },
    { id: "second-step", when: { step: 1 }, reply: "step one" },
    { id: "echo", when: { last_human: "^echo (.*)$" }, reply: "{{match.1}} / {{lastHuman}} / {{nothing.here}}" },
  ],
  fallback: { reply: "no idea" },
};

const weatherTool = tool(async () => "", {
  name: "get_weather",
  description: "Weather for a city",
  schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
});

const human = (text: string): HumanMessage => new HumanMessage(text);

describe("ScriptedChatModel", () => {
  it("answers the same messages the same way, across instances and calls", async () => {
    const messages = [human("What is the weather in Paris?")];
    const first = await new ScriptedChatModel({ script }).invoke(messages);
    const second = await new ScriptedChatModel({ script }).invoke(messages);
    expect(first.tool_calls).toEqual(second.tool_calls);
    expect(first.content).toBe(second.content);
    expect(first.tool_calls).toEqual([{ type: "tool_call", id: "call_1_0", name: "get_weather", args: { city: "Paris", units: "metric" } }]);
  });

  it("matches last_human case-insensitively and fills {{match.N}}", async () => {
    const answer = await new ScriptedChatModel({ script }).invoke([human("WEATHER IN Oslo please")]);
    expect(answer.tool_calls?.[0]?.args).toEqual({ city: "Oslo", units: "metric" });
  });

  it("matches the last tool result and its tool name, and picks JSON fields from it", async () => {
    const messages: BaseMessage[] = [
      human("weather in Rome"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "get_weather", args: { city: "Rome" } }] }),
      new ToolMessage({ tool_call_id: "c1", name: "get_weather", content: JSON.stringify({ city: "Rome", temp: 21 }) }),
    ];
    const answer = await new ScriptedChatModel({ script }).invoke(messages);
    expect(answer.content).toBe("It is 21 degrees in Rome.");
    expect(answer.tool_calls).toEqual([]);
    // A result from another tool does not match last_tool_name.
    const other = [...messages.slice(0, 2), new ToolMessage({ tool_call_id: "c1", name: "search", content: '{"temp": 1}' })];
    expect((await new ScriptedChatModel({ script }).invoke(other)).content).toBe("step one");
  });

  it("matches text in the system prompt", async () => {
    const answer = await new ScriptedChatModel({ script }).invoke([new SystemMessage("You are a poet."), human("hello")]);
    expect(answer.content).toBe("Roses are red.");
  });

  it("matches tool_available only once the tool is bound", async () => {
    const model = new ScriptedChatModel({ script });
    expect((await model.invoke([human("what tools do you have?")])).content).toBe("no idea");
    const bound = model.bindTools([weatherTool]);
    expect((await bound.invoke([human("what tools do you have?")])).content).toBe("I can check the weather.");
  });

  it("counts the step within the current turn only", async () => {
    const earlierTurn: BaseMessage[] = [human("weather in Rome"), new AIMessage("a"), new AIMessage("b")];
    expect((await new ScriptedChatModel({ script }).invoke([...earlierTurn, human("weather in Oslo")])).tool_calls?.[0]?.args.city).toBe("Oslo");
    expect((await new ScriptedChatModel({ script }).invoke([human("hm"), new AIMessage("x")])).content).toBe("step one");
  });

  it("takes the first matching rule, and the fallback when none matches", async () => {
    const ordered: ChatScript = { rules: [{ reply: "first", when: { last_human: "a" } }, { reply: "second", when: { last_human: "a" } }] };
    expect((await new ScriptedChatModel({ script: ordered }).invoke([human("a")])).content).toBe("first");
    expect((await new ScriptedChatModel({ script: ordered }).invoke([human("b")])).content).toContain("no rule of the script matched");
    expect((await new ScriptedChatModel({ script }).invoke([human("zzz")])).content).toBe("no idea");
  });

  it("leaves unknown placeholders as written", async () => {
    const answer = await new ScriptedChatModel({ script }).invoke([human("echo hi there")]);
    expect(answer.content).toBe("hi there / echo hi there / {{nothing.here}}");
  });

  it("after_tool distinguishes a turn with tool results from one without", async () => {
    const afterTool: ChatScript = { rules: [{ when: { after_tool: true }, reply: "got {{lastToolName}}" }, { when: { after_tool: false }, reply: "fresh" }] };
    const model = new ScriptedChatModel({ script: afterTool });
    expect((await model.invoke([human("x")])).content).toBe("fresh");
    const withTool = [human("x"), new AIMessage({ content: "", tool_calls: [{ id: "t", name: "ls", args: {} }] }), new ToolMessage({ tool_call_id: "t", name: "ls", content: "a b" })];
    expect((await model.invoke(withTool)).content).toBe("got ls");
  });

  it("streams the text in several chunks and the tool calls as tool-call chunks", async () => {
    const streaming: ChatScript = { rules: [{ reply: "Let me check the weather.", tool_calls: [{ name: "get_weather", args: { city: "Lima" } }] }] };
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await new ScriptedChatModel({ script: streaming }).stream([human("go")])) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    const merged = chunks.reduce((all, chunk) => all.concat(chunk));
    expect(merged.content).toBe("Let me check the weather.");
    expect(merged.tool_calls).toEqual([{ type: "tool_call", id: "call_1_0", name: "get_weather", args: { city: "Lima" } }]);
    const invoked = await new ScriptedChatModel({ script: streaming }).invoke([human("go")]);
    expect(invoked.tool_calls).toEqual(merged.tool_calls);
  });

  it("records which rule answered", async () => {
    const answer = await new ScriptedChatModel({ script }).invoke([human("weather in Paris")]);
    expect(answer.response_metadata.scripted_rule).toBe("weather");
  });
});
