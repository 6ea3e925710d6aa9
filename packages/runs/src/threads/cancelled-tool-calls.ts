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

/**
 * The history with each tool call that has no result but is followed by a message other than the
 * results of its own message answered in place (an error ToolMessage with `text`, after those
 * results), or undefined when there is none. A new user message sent instead of answering an
 * interrupt (an approval, a question) leaves the waiting call open that way: the pending step is
 * dropped, and chat model APIs refuse a history with an unanswered call. The calls of the last
 * message are still to run and stay open.
 */
export function withUnansweredToolCallsClosed(messages: readonly BaseMessage[], text: string): BaseMessage[] | undefined {
  const answered = new Set(messages.flatMap((message) => (message.getType() === "tool" ? [(message as ToolMessage).tool_call_id] : [])));
  const closed: BaseMessage[] = [];
  let open: ToolMessage[] = [];
  let changed = false;
  messages.forEach((message, index) => {
    if (message.getType() !== "tool" && open.length > 0) {
      closed.push(...open);
      open = [];
      changed = true;
    }
    closed.push(message);
    if (message.getType() !== "ai" || index === messages.length - 1) return;
    const calls = (message as { tool_calls?: { id?: string; name: string }[] }).tool_calls ?? [];
    open = calls.filter((call) => call.id !== undefined && !answered.has(call.id)).map((call) => new ToolMessage({ tool_call_id: call.id as string, name: call.name, status: "error", content: text }));
  });
  return changed ? closed : undefined;
}
