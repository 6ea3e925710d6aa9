import type { BaseMessage } from "@langchain/core/messages";

/** What a script rule can see of the conversation on one model call. */
export interface ConversationView {
  /** The system prompt(s), joined with blank lines. */
  readonly system: string;
  /** The text of the last human message, or undefined before the first one. */
  readonly lastHuman: string | undefined;
  /** Model calls already made since the last human message (0 on the first call of a turn). */
  readonly step: number;
  /** Tool results since the last human message, oldest first. */
  readonly toolResults: readonly { readonly name: string; readonly text: string }[];
  /** Number of messages in the conversation (used to make tool call ids unique and stable). */
  readonly length: number;
}

/** Builds the view from the messages a chat model receives; pure, so the same messages give the same view. */
export function viewConversation(messages: readonly BaseMessage[]): ConversationView {
  const system: string[] = [];
  let lastHumanIndex = -1;
  messages.forEach((message, index) => {
    const type = message.getType();
    if (type === "system") system.push(message.text);
    if (type === "human") lastHumanIndex = index;
  });
  const turn = messages.slice(lastHumanIndex + 1);
  const toolResults = turn
    .filter((message) => message.getType() === "tool")
    .map((message) => ({ name: message.name ?? "", text: message.text }));
  return {
    system: system.join("\n\n"),
    lastHuman: lastHumanIndex >= 0 ? messages[lastHumanIndex]?.text : undefined,
    step: turn.filter((message) => message.getType() === "ai").length,
    toolResults,
    length: messages.length,
  };
}
