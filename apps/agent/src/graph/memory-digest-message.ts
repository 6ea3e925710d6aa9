import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { messageFields } from "./message-fields.js";

/** Where a thread's first user message stores the `<memory>` digest (additional_kwargs key). */
export const memoryDigestKey = "memory_digest";

/**
 * Whether the last message is the thread's first user message and carries no digest yet: only a
 * new thread's first message is given one, so later turns (and the system prompt) never change
 * when memory does.
 */
export function needsMemoryDigest(messages: readonly BaseMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.getType() !== "human" || Object.hasOwn(last.additional_kwargs ?? {}, memoryDigestKey)) return false;
  return messages.filter((message) => message.getType() === "human").length === 1;
}

/** The same user message (same id, same content) with the digest stored once; messageForModel renders it before the message's text. */
export function storeMemoryDigest(message: BaseMessage, digest: string): HumanMessage {
  return new HumanMessage({ ...messageFields(message), additional_kwargs: { ...message.additional_kwargs, [memoryDigestKey]: digest } });
}

/** A stored digest as the model is sent it: only a string that is a whole `<memory>` block (a client cannot pass other text off as one). */
export function renderMemoryDigest(value: unknown): string {
  return typeof value === "string" && value.startsWith("<memory>\n") && value.endsWith("\n</memory>") ? value : "";
}
