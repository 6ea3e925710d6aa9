import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { ScriptedChatModel, type ChatScript } from "@thinktank/models";

/** One model call as the model received it: the system prompt, the rest of the messages, the tools bound. */
export interface RecordedCall {
  readonly system: string;
  readonly messages: readonly { type: string; content: unknown }[];
  readonly tools: readonly string[];
}

/** The scripted model answering by `script`, pushing every call it answers (streamed or not: both go through decide) onto `calls`. */
export class RecordingModel extends ScriptedChatModel {
  constructor(
    private readonly chatScript: ChatScript,
    private readonly calls: RecordedCall[],
    toolNames: readonly string[] = [],
  ) {
    super({ script: chatScript, toolNames });
  }
  override bindTools(tools: BindToolsInput[]): RecordingModel {
    return new RecordingModel(this.chatScript, this.calls, [...this.toolNames, ...(tools as { name: string }[]).map((tool) => tool.name)]);
  }
  override decide(messages: readonly BaseMessage[]): ReturnType<ScriptedChatModel["decide"]> {
    const [system, ...rest] = messages;
    this.calls.push({ system: system?.text ?? "", messages: rest.map((message) => ({ type: message.getType(), content: message.content })), tools: [...this.toolNames] });
    return super.decide(messages);
  }
}
