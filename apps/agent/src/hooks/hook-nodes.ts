import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { trackRunWork } from "@thinktank/core";
import type { HookEventResult, HookRunOptions, HookSession, HookSubagent } from "@thinktank/plugins";
import { messageText } from "../graph/skill-context-message.js";
import { blockedPrompt, isFirstRun, stopBlocksSoFar, stopFeedback, stopText, storeHookContext, type StoredHookContext } from "./hook-messages.js";

/** How often Stop hooks may send the model back to work in one run. */
export const maxStopBlocksPerRun = 3;

/** What a node's hook calls are given: the run's signal, and the run's `custom` stream for each hook's record. */
export function hookRunOptions(config: LangGraphRunnableConfig): HookRunOptions {
  const writer = config.writer;
  return { ...(config.signal ? { signal: config.signal } : {}), ...(writer ? { onRecord: (record) => writer(record) } : {}) };
}

/** Whether a new user message has SessionStart or UserPromptSubmit hooks to meet (a map lookup each). */
export function hasPromptHooks(hooks: HookSession | undefined): hooks is HookSession {
  return !!hooks && (hooks.has("UserPromptSubmit") || hooks.has("SessionStart"));
}

/**
 * The node before a new user message is processed: SessionStart (source `startup`) on the thread's
 * first run, then UserPromptSubmit with the message as typed. What they add is stored on the
 * message (rendered after its text on every model call). A block (exit 2, `decision: "block"`) or
 * `continue: false` keeps the message from the model: the run answers the reason instead, and both
 * stay in the thread marked `hook_blocked`. A hook that fails or hangs changes nothing.
 */
export async function runPromptHooks(hooks: HookSession, messages: readonly BaseMessage[], text: string, config: LangGraphRunnableConfig): Promise<BaseMessage[]> {
  const last = messages.at(-1) as BaseMessage;
  const options = hookRunOptions(config);
  const context: StoredHookContext[] = [];
  if (hooks.has("SessionStart") && isFirstRun(messages)) {
    const started = await trackRunWork(config, hooks.sessionStart("startup", options));
    if (started.stop) return blockedPrompt(last, "SessionStart", [started.stop.plugin], stopText("SessionStart", started.stop.plugin, started.stop.reason));
    context.push(...contextOf(started));
  }
  if (hooks.has("UserPromptSubmit")) {
    const submitted = await trackRunWork(config, hooks.userPromptSubmit(text, options));
    if (submitted.stop) return blockedPrompt(last, "UserPromptSubmit", [submitted.stop.plugin], stopText("UserPromptSubmit", submitted.stop.plugin, submitted.stop.reason));
    if (submitted.blocked) {
      const { plugins, reason } = submitted.blocked;
      return blockedPrompt(last, "UserPromptSubmit", plugins, `This message was blocked by a UserPromptSubmit hook (plugin ${plugins.join(", ")}): ${reason}`);
    }
    context.push(...contextOf(submitted));
  }
  return [storeHookContext(last, context)];
}

/**
 * The node after the model answered without tool calls: Stop hooks. A block sends the model back to
 * work with the reason as a user-side message (`stop_hook_active` is true from the second time on),
 * at most `maxStopBlocksPerRun` times a run; after that, or on `continue: false`, the run ends.
 */
export async function runStopHooks(hooks: HookSession, messages: readonly BaseMessage[], config: LangGraphRunnableConfig): Promise<BaseMessage[]> {
  const blocks = stopBlocksSoFar(messages);
  const result = await trackRunWork(config, hooks.stop(blocks > 0, hookRunOptions(config)));
  if (result.stop || !result.blocked || blocks >= maxStopBlocksPerRun) return [];
  return [stopFeedback(result.blocked.reason, result.blocked.plugins)];
}

/**
 * Stop's counterpart when the graph runs a sub-agent: SubagentStop, with the sub-agent (its id and
 * type; matchers match its names) and its answer. A block sends the sub-agent back to work the same
 * way, at most `maxStopBlocksPerRun` times a delegation; `continue: false` lets it end with its answer.
 */
export async function runSubagentStopHooks(hooks: HookSession, agent: HookSubagent, messages: readonly BaseMessage[], config: LangGraphRunnableConfig): Promise<BaseMessage[]> {
  const blocks = stopBlocksSoFar(messages);
  const answer = messages.at(-1);
  const result = await trackRunWork(config, hooks.subagentStop(agent, blocks > 0, answer ? messageText(answer) : "", hookRunOptions(config)));
  if (result.stop || !result.blocked || blocks >= maxStopBlocksPerRun) return [];
  return [stopFeedback(result.blocked.reason, result.blocked.plugins, "SubagentStop")];
}

/**
 * A sub-agent as its SubagentStop hooks hear of it: `type` is Claude Code's `agent_type` (a plugin's
 * agent `<plugin>:<name>`, any other its name); a matcher may match that, the bare name or the identity.
 */
export function hookSubagentOf(agent: { readonly identity: string; readonly name: string; readonly plugin?: string }, toolCallId: string): HookSubagent {
  const type = agent.plugin ? `${agent.plugin}:${agent.name}` : agent.name;
  return { id: toolCallId, type, names: [...new Set([type, agent.name, agent.identity])] };
}

function contextOf(result: HookEventResult): StoredHookContext[] {
  return result.context.map((entry) => ({ event: result.event, plugin: entry.plugin, text: entry.text }));
}
