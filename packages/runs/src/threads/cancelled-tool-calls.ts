import { ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** What a tool call that a cancelled run never finished is answered with. */
export const cancelledToolCallText = "cancelled: the run was cancelled before this tool call finished";

/**
 * One error ToolMessage per tool call of the last AI message that has no result yet. A run
 * cancelled between the model's tool calls and their results leaves them open, and a history with
 * an unanswered tool call is refused by chat model APIs on the next run.
 */
export function cancelledToolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  const lastAi = messages.findLastIndex((message) => message.getType() === "ai");
  if (lastAi < 0) return [];
  const calls = (messages[lastAi] as { tool_calls?: { id?: string; name: string }[] }).tool_calls ?? [];
  const answered = new Set(
    messages
      .slice(lastAi + 1)
      .filter((message) => message.getType() === "tool")
      .map((message) => (message as ToolMessage).tool_call_id),
  );
  return calls
    .filter((call) => call.id !== undefined && !answered.has(call.id))
    .map((call) => new ToolMessage({ tool_call_id: call.id as string, name: call.name, status: "error", content: cancelledToolCallText }));
}
