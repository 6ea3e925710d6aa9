import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { cancelledToolCallText, cancelledToolMessages, withUnansweredToolCallsClosed } from "./cancelled-tool-calls.js";

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

  it("closes, in place, calls that a later message left without a result, and leaves the last message's calls to run", () => {
    const open = new AIMessage({ id: "ai-1", content: "", tool_calls: [{ id: "a", name: "note", args: {} }, { id: "b", name: "ls", args: {} }] });
    const messages = [new HumanMessage({ id: "h-1", content: "go" }), open, new ToolMessage({ id: "t-b", tool_call_id: "b", name: "ls", content: "done" }), new HumanMessage({ id: "h-2", content: "never mind" })];
    const closed = withUnansweredToolCallsClosed(messages, "not run");
    expect(closed?.map((message) => message.id ?? `${message.getType()}:${(message as ToolMessage).tool_call_id}:${String(message.content)}`)).toEqual(["h-1", "ai-1", "t-b", "tool:a:not run", "h-2"]);
    expect((closed?.[3] as ToolMessage).status).toBe("error");
    expect(withUnansweredToolCallsClosed(messages.slice(0, 3), "not run")).toBeUndefined();
    expect(withUnansweredToolCallsClosed([new HumanMessage("go"), open], "not run")).toBeUndefined();
    expect(withUnansweredToolCallsClosed([new HumanMessage("hi"), new AIMessage("hello"), new HumanMessage("again")], "not run")).toBeUndefined();
  });
});
