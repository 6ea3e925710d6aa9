import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { cancelledToolCallText, cancelledToolMessages } from "./cancelled-tool-calls.js";

describe("cancelledToolMessages", () => {
  it("answers only the calls of the last AI message that have no result", () => {
    const messages = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [{ id: "a", name: "bash", args: {} }, { id: "b", name: "ls", args: {} }] }),
      new ToolMessage({ tool_call_id: "b", name: "ls", content: "done" }),
    ];
    const answers = cancelledToolMessages(messages);
    expect(answers.map((message) => [message.tool_call_id, message.name, message.status, message.content])).toEqual([["a", "bash", "error", cancelledToolCallText]]);
  });

  it("leaves a closed history or one without tool calls alone", () => {
    expect(cancelledToolMessages([new HumanMessage("hi"), new AIMessage("hello")])).toEqual([]);
    expect(cancelledToolMessages([new HumanMessage("hi")])).toEqual([]);
    const closed = [new AIMessage({ content: "", tool_calls: [{ id: "a", name: "bash", args: {} }] }), new ToolMessage({ tool_call_id: "a", content: "ok" })];
    expect(cancelledToolMessages(closed)).toEqual([]);
  });
});
