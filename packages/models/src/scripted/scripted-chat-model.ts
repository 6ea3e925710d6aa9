import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { ChatScript } from "./chat-script-types.js";
import { viewConversation } from "./conversation-view.js";
import { matchRule } from "./match-rule.js";
import { renderDeep, renderTemplate } from "./render-template.js";

export interface ScriptedChatModelOptions extends BaseChatModelParams {
  /** The script that decides every answer (see packages/models/README.md). */
  script: ChatScript;
  /** Names of the tools bound so far (bindTools fills this in). @default [] */
  toolNames?: readonly string[];
}

/** One answer decided by the script, before it becomes a message. */
interface ScriptedAnswer {
  readonly text: string;
  readonly toolCalls: ToolCall[];
  readonly rule: string;
}

const defaultFallbackText = "(scripted model: no rule of the script matched this conversation)";

/**
 * A deterministic chat model for tests and demos. Each call looks only at the messages it is
 * given (no state between calls or runs), picks the first matching rule of its script, and
 * answers with the rule's text and tool calls. It streams like a real model: the text in a few
 * chunks, then the tool calls as tool-call chunks.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly script: ChatScript;
  readonly toolNames: readonly string[];

  constructor(options: ScriptedChatModelOptions) {
    const { script, toolNames = [], ...rest } = options;
    super(rest);
    this.script = script;
    this.toolNames = toolNames;
  }

  static override lc_name(): string {
    return "ScriptedChatModel";
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: BindToolsInput[]): ScriptedChatModel {
    const names = tools.map(toolName).filter((name): name is string => name !== undefined);
    return new ScriptedChatModel({ script: this.script, toolNames: [...this.toolNames, ...names], callbacks: this.callbacks });
  }

  /** The answer for these messages; exposed so tools like `thinktank inspect` can show what the script would do. */
  decide(messages: readonly BaseMessage[]): ScriptedAnswer {
    const view = viewConversation(messages);
    const matched = matchRule(this.script.rules, view, new Set(this.toolNames));
    const answer = matched?.rule ?? this.script.fallback ?? { reply: defaultFallbackText };
    const groups = matched?.groups ?? [];
    const rendered = answer.reply === undefined ? "" : renderTemplate(answer.reply, view, groups);
    const toolCalls = (answer.tool_calls ?? []).map((call, index): ToolCall => ({
      type: "tool_call",
      // Stable and unique within a thread: the conversation only grows.
      id: `call_${view.length}_${index}`,
      name: call.name,
      args: (renderDeep(call.args ?? {}, view, groups) ?? {}) as Record<string, unknown>,
    }));
    const rule = matched ? (matched.rule.id ?? `rules[${matched.index}]`) : "fallback";
    return { text: typeof rendered === "string" ? rendered : JSON.stringify(rendered), toolCalls, rule };
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const answer = this.decide(messages);
    const message = new AIMessage({
      content: answer.text,
      tool_calls: answer.toolCalls,
      response_metadata: { model_provider: "scripted", scripted_rule: answer.rule },
    });
    return { generations: [{ text: answer.text, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const answer = this.decide(messages);
    const pieces = answer.text.match(/\S+\s*|\s+/g) ?? [];
    for (const piece of pieces) {
      if (options.signal?.aborted) return;
      const chunk = new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
    const last = new ChatGenerationChunk({
      text: "",
      message: new AIMessageChunk({
        content: "",
        tool_call_chunks: answer.toolCalls.map((call, index) => ({
          type: "tool_call_chunk" as const,
          id: call.id,
          name: call.name,
          args: JSON.stringify(call.args),
          index,
        })),
        response_metadata: { model_provider: "scripted", scripted_rule: answer.rule },
      }),
    });
    yield last;
    await runManager?.handleLLMNewToken("", undefined, undefined, undefined, undefined, { chunk: last });
  }
}

function toolName(tool: BindToolsInput): string | undefined {
  if (typeof tool !== "object" || tool === null) return undefined;
  const record = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof record.name === "string") return record.name;
  if (typeof record.function?.name === "string") return record.function.name;
  return undefined;
}
