import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { RunTally } from "./run-tally.js";

const answer = (message: AIMessage) => ({ generations: [[{ text: typeof message.content === "string" ? message.content : "", message }]] });
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe("RunTally", () => {
  it("sums the usage each model call reports, counts tool calls and failures", () => {
    const tally = new RunTally(words);
    tally.handleChatModelStart({}, [[new HumanMessage("one two three")]], "call-1");
    tally.handleLLMEnd(answer(new AIMessage({ content: "ok", usage_metadata: { input_tokens: 120, output_tokens: 7, total_tokens: 127 } })), "call-1");
    tally.handleToolStart();
    tally.handleToolEnd(new ToolMessage({ content: "done", tool_call_id: "t1" }));
    tally.handleToolStart();
    tally.handleToolEnd(new ToolMessage({ content: "no such file", tool_call_id: "t2", status: "error" }));
    tally.handleToolStart();
    tally.handleToolError();
    expect(tally.figures()).toEqual({ tokens: { input: 120, output: 7, total: 127 }, tool_calls: 3, tool_errors: 2 });
  });

  it("counts a call's prompt and answer when the model reports no usage, and says the tokens are estimated", () => {
    const tally = new RunTally(words);
    tally.handleChatModelStart({}, [[new HumanMessage("four words are here")]], "call-1");
    tally.handleLLMEnd(answer(new AIMessage({ content: "two words" })), "call-1");
    expect(tally.figures()).toEqual({ tokens: { input: 4, output: 2, total: 6, estimated: true }, tool_calls: 0, tool_errors: 0 });
  });

  it("has no tokens when nothing reports usage and nothing counts them", () => {
    const tally = new RunTally();
    tally.handleChatModelStart({}, [[new HumanMessage("hello")]], "call-1");
    tally.handleLLMEnd(answer(new AIMessage({ content: "hi" })), "call-1");
    expect(tally.figures()).toEqual({ tool_calls: 0, tool_errors: 0 });
  });
});
