import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Config } from "@thinktank/core";
import { resolveModel, type ResolvedModel } from "./resolve-model.js";
import { defaultChatScript } from "./scripted/default-chat-script.js";
import { loadChatScript } from "./scripted/load-chat-script.js";
import { ScriptedChatModel } from "./scripted/scripted-chat-model.js";

/**
 * The chat model named `name` (else models.default, else the only configured one), built from
 * config.yaml with its key from `config.env`. Throws MODEL_NOT_CONFIGURED saying what to set.
 * Building a model makes no network call; a wrong key shows on the first request.
 */
export async function createChatModel(config: Config, name?: string): Promise<BaseChatModel> {
  return chatModelFor(resolveModel(config, name));
}

/**
 * Builds the LangChain model for an already resolved entry. A provider's client library loads on
 * its first use: together they are a quarter of the agent's modules, and the demo needs neither.
 */
export async function chatModelFor(resolved: ResolvedModel): Promise<BaseChatModel> {
  const { model, apiKey } = resolved;
  switch (model.provider) {
    case "scripted":
      return new ScriptedChatModel({ script: resolved.scriptPath ? loadChatScript(resolved.scriptPath) : defaultChatScript });
    case "anthropic": {
      const { ChatAnthropic } = await import("@langchain/anthropic");
      return new ChatAnthropic({
        model: model.model,
        apiKey,
        temperature: model.temperature,
        maxTokens: model.max_tokens,
        ...(model.base_url ? { anthropicApiUrl: model.base_url } : {}),
      });
    }
    case "openai":
    case "openai-compatible": {
      const { ChatOpenAI } = await import("@langchain/openai");
      return new ChatOpenAI({
        model: model.model,
        // Local OpenAI-compatible servers (Ollama, llama.cpp) take any key; the client insists on one.
        apiKey: apiKey ?? "not-needed",
        temperature: model.temperature,
        maxTokens: model.max_tokens,
        ...(model.base_url ? { configuration: { baseURL: model.base_url } } : {}),
      });
    }
  }
}
