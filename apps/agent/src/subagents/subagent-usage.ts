import { isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { countTokens } from "@thinktank/mcp";
import { messageText } from "../graph/skill-context-message.js";

/** A sub-agent's model tokens over its whole run. */
export interface SubagentUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** No model call reported its usage, so the tokens were counted (o200k) here. */
  readonly estimated: boolean;
}

/**
 * The tokens of a sub-agent's model calls: the sum of the usage its answers report
 * (usage_metadata), else a count of what each call was sent (the system prompt and every message
 * before the answer) and what it answered (text and tool calls), as the lead's own token figures are
 * counted. Counted once per message, so it costs one pass over the sub-agent's messages.
 */
export function subagentUsage(systemPrompt: string, messages: readonly BaseMessage[]): SubagentUsage {
  const reported = messages.filter(isAIMessage).filter((message) => message.usage_metadata !== undefined);
  if (reported.length > 0) {
    return {
      inputTokens: reported.reduce((sum, message) => sum + (message.usage_metadata?.input_tokens ?? 0), 0),
      outputTokens: reported.reduce((sum, message) => sum + (message.usage_metadata?.output_tokens ?? 0), 0),
      estimated: false,
    };
  }
  const system = countTokens(systemPrompt);
  let before = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const message of messages) {
    const tokens = countTokens(messageText(message)) + (isAIMessage(message) && message.tool_calls?.length ? countTokens(JSON.stringify(message.tool_calls.map(({ name, args }) => ({ name, args })))) : 0);
    if (isAIMessage(message)) {
      inputTokens += system + before;
      outputTokens += tokens;
    }
    before += tokens;
  }
  return { inputTokens, outputTokens, estimated: true };
}
