import type { BaseMessage } from "@langchain/core/messages";

/** What a script rule can see of the conversation on one model call. */
export interface ConversationView {
  /** The system prompt(s), joined with blank lines. */
  readonly system: string;
  /** The text of the last human message as the model gets it, or undefined before the first one. */
  readonly lastHuman: string | undefined;
  /** What the user typed in that message (see `typedText`), or undefined before the first one. */
  readonly userTyped: string | undefined;
  /** Whether that message is a slash command's expansion. */
  readonly slashCommand: boolean;
  /** Model calls already made since the last human message (0 on the first call of a turn). */
  readonly step: number;
  /** Tool results since the last human message, oldest first. */
  readonly toolResults: readonly { readonly name: string; readonly text: string }[];
  /** Number of messages in the conversation (used to make tool call ids unique and stable). */
  readonly length: number;
}

/** Builds the view from the messages a chat model receives; pure, so the same messages give the same view. */
/** Where the agent records what the user typed when it replaced the message by a slash command's expansion. */
const slashCommandKey = "slash_command";
/** The blocks the agent appends to a user message's copy for the model, in this order: the upload note, the skills offered (compact listing). */
const agentBlocks = ["uploaded_files", "relevant_skills"] as const;
/** The block the agent puts before a new thread's first user message: the user's memory digest. */
const leadingBlock = "memory";

/**
 * What the user typed in a human message: the slash command as typed when the agent expanded one
 * (`additional_kwargs.slash_command.original`), else the text without the trailing
 * `<uploaded_files>` and `<relevant_skills>` blocks, which the agent adds after the user's own words,
 * and without the leading `<memory>` digest it puts before a new thread's first message.
 */
export function typedText(message: BaseMessage): string {
  const original = slashCommandOf(message)?.original;
  if (typeof original === "string") return original;
  if (typeof message.content !== "string") {
    const parts = message.content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []));
    return parts.filter((text) => ![...agentBlocks, leadingBlock].some((block) => text.startsWith(`<${block}>`))).join("");
  }
  let text = message.content;
  const leadingEnd = `\n</${leadingBlock}>\n\n`;
  if (text.startsWith(`<${leadingBlock}>\n`) && text.includes(leadingEnd)) text = text.slice(text.indexOf(leadingEnd) + leadingEnd.length);
  for (const block of [...agentBlocks].reverse()) {
    const at = text.lastIndexOf(`\n\n<${block}>\n`);
    if (at >= 0 && text.trimEnd().endsWith(`</${block}>`)) text = text.slice(0, at);
  }
  return text;
}

function slashCommandOf(message: BaseMessage | undefined): { original?: unknown } | undefined {
  const recorded = message?.additional_kwargs?.[slashCommandKey];
  return typeof recorded === "object" && recorded !== null ? (recorded as { original?: unknown }) : undefined;
}

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
    userTyped: lastHumanIndex >= 0 ? typedText(messages[lastHumanIndex] as BaseMessage) : undefined,
    slashCommand: slashCommandOf(messages[lastHumanIndex]) !== undefined,
    step: turn.filter((message) => message.getType() === "ai").length,
    toolResults,
    length: messages.length,
  };
}
