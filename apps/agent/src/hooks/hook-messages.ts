import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { HookContext, HookEventName } from "@thinktank/plugins";
import { messageFields } from "../graph/message-fields.js";

/**
 * Where hook results live in the thread (additional_kwargs keys), so the model sees them on every
 * later turn from the history, never from the system prompt (which stays byte-identical):
 * - `hook_context` on a user message: what its SessionStart / UserPromptSubmit hooks added
 *   (`[{ event, plugin, text }]`, possibly empty: the hooks ran); rendered after its text;
 * - `hook_blocked` on a user message a hook blocked and on the run's answer: both are left out of
 *   what the model is sent (Claude Code erases a blocked prompt); on a tool result a PreToolUse hook
 *   denied, which the model is sent (it answers the call);
 * - `hook_feedback` on the user-side message a Stop (SubagentStop) hook's block adds;
 * - `hook_stop` on a tool result whose hook said `continue: false`, and on the answer that ends the run.
 */
export const hookContextKey = "hook_context";
export const hookBlockedKey = "hook_blocked";
export const hookFeedbackKey = "hook_feedback";
export const hookStopKey = "hook_stop";

/** One piece of stored context. */
export interface StoredHookContext extends HookContext {
  readonly event: HookEventName;
}

/** Whether a user message still has to meet its SessionStart / UserPromptSubmit hooks. */
export function needsPromptHooks(message: BaseMessage | undefined): message is BaseMessage {
  return message?.getType() === "human" && !Object.hasOwn(message.additional_kwargs ?? {}, hookContextKey) && !Object.hasOwn(message.additional_kwargs ?? {}, hookFeedbackKey);
}

/** The thread's first run: nothing but new user messages, none of which met its hooks yet. */
export function isFirstRun(messages: readonly BaseMessage[]): boolean {
  return messages.every((message) => needsPromptHooks(message));
}

/** The same user message (same id, same content) with the context its hooks added, stored once. */
export function storeHookContext(message: BaseMessage, context: readonly StoredHookContext[]): HumanMessage {
  return new HumanMessage({ ...messageFields(message), additional_kwargs: { ...message.additional_kwargs, [hookContextKey]: context.map(({ event, plugin, text }) => ({ event, plugin, text })) } });
}

/** A blocked user message, and the run's answer to it (`reason` shown to the user, never to the model). */
export function blockedPrompt(message: BaseMessage, event: HookEventName, plugins: readonly string[], answer: string): BaseMessage[] {
  const marker = { event, plugins: [...plugins] };
  return [
    new HumanMessage({ ...messageFields(message), additional_kwargs: { ...message.additional_kwargs, [hookContextKey]: [], [hookBlockedKey]: marker } }),
    new AIMessage({ content: answer, additional_kwargs: { [hookBlockedKey]: marker } }),
  ];
}

/** The user-side message that makes the model go on after a Stop (a sub-agent's: SubagentStop) hook blocked. */
export function stopFeedback(reason: string, plugins: readonly string[], event: "Stop" | "SubagentStop" = "Stop"): HumanMessage {
  return new HumanMessage({ content: `A ${event} hook (plugin ${plugins.join(", ")}) asks you to continue: ${reason}`, additional_kwargs: { [hookFeedbackKey]: { event, plugins: [...plugins] } } });
}

/** Stop feedback messages since the last message the user wrote: how often Stop hooks blocked this run. */
export function stopBlocksSoFar(messages: readonly BaseMessage[]): number {
  let count = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as BaseMessage;
    if (message.getType() !== "human") continue;
    if (!Object.hasOwn(message.additional_kwargs ?? {}, hookFeedbackKey)) break;
    count++;
  }
  return count;
}

/** A tool result with hook text after it (PreToolUse context, PostToolUse feedback), every other field kept. */
export function withToolFeedback(message: ToolMessage, blocks: readonly string[], extra: Record<string, unknown> = {}): ToolMessage {
  if (blocks.length === 0 && Object.keys(extra).length === 0) return message;
  const text = blocks.join("\n\n");
  const content = blocks.length === 0 ? message.content : typeof message.content === "string" ? (message.content ? `${message.content}\n\n${text}` : text) : [...message.content, { type: "text" as const, text }];
  return new ToolMessage({
    content,
    tool_call_id: message.tool_call_id,
    ...(message.name ? { name: message.name } : {}),
    ...(message.id ? { id: message.id } : {}),
    ...(message.status ? { status: message.status } : {}),
    ...(message.artifact !== undefined ? { artifact: message.artifact } : {}),
    additional_kwargs: { ...message.additional_kwargs, ...extra },
    ...(message.response_metadata && Object.keys(message.response_metadata).length > 0 ? { response_metadata: message.response_metadata } : {}),
  });
}

/** A hook's words for the model, tagged with where they come from. */
export function hookBlock(tag: "hook_context" | "hook_feedback", event: HookEventName, plugin: string, text: string): string {
  return `<${tag} event="${event}" plugin="${plugin}">\n${text}\n</${tag}>`;
}

/** The answer that ends a run a hook stopped (`continue: false`), if the latest tool results carry one. */
export function hookStopAnswer(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as BaseMessage;
    if (message.getType() !== "tool") break;
    const stop = message.additional_kwargs?.[hookStopKey] as { event?: string; plugin?: string; reason?: string } | undefined;
    if (stop) return new AIMessage({ content: stopText(stop.event ?? "PreToolUse", stop.plugin ?? "?", stop.reason), additional_kwargs: { [hookStopKey]: stop } });
  }
  return undefined;
}

export function stopText(event: string, plugin: string, reason: string | undefined): string {
  return `Stopped by a ${event} hook of plugin ${plugin}${reason ? `: ${reason}` : "."}`;
}

/**
 * The history as the model is sent it: user messages a hook blocked, and their answers, left out
 * (never a tool result: every call keeps its answer);
 * a user message's stored hook context rendered after its text (from what was stored, so re-sent
 * history is byte-identical). Messages without hook keys are passed through as they are.
 */
export function withHookContext(messages: readonly BaseMessage[]): readonly BaseMessage[] {
  // A thread no hook ever touched is sent as it is (no copy).
  if (!messages.some((message) => Object.hasOwn(message.additional_kwargs ?? {}, hookBlockedKey) || Object.hasOwn(message.additional_kwargs ?? {}, hookContextKey))) return messages;
  const sent: BaseMessage[] = [];
  for (const message of messages) {
    const kwargs = message.additional_kwargs ?? {};
    if (Object.hasOwn(kwargs, hookBlockedKey) && message.getType() !== "tool") continue;
    const stored = kwargs[hookContextKey];
    if (message.getType() !== "human" || !Array.isArray(stored) || stored.length === 0) {
      sent.push(message);
      continue;
    }
    const { [hookContextKey]: _rendered, ...rest } = kwargs;
    const blocks = stored.filter(isStoredContext).map((entry) => hookBlock("hook_context", entry.event, entry.plugin, entry.text));
    const text = blocks.join("\n\n");
    const content = blocks.length === 0 ? message.content : typeof message.content === "string" ? `${message.content}\n\n${text}` : [...message.content, { type: "text" as const, text }];
    sent.push(new HumanMessage({ ...messageFields(message), content, additional_kwargs: rest }));
  }
  return sent;
}

function isStoredContext(value: unknown): value is StoredHookContext {
  if (typeof value !== "object" || value === null) return false;
  const { event, plugin, text } = value as Record<string, unknown>;
  return typeof event === "string" && typeof plugin === "string" && typeof text === "string";
}
