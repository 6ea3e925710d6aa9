import { ThinktankError, type Config } from "@thinktank/core";
import type { Embedder } from "./embedder.js";
import { OpenAiCompatibleEmbedder } from "./openai-compatible-embedder.js";

/**
 * The embedder config.search.embeddings describes, or undefined when the semantic stage is off
 * (provider "none", the default). The key is read from `config.env` (the entry point's
 * environment) under `api_key_env`, by default OPENAI_API_KEY for provider "openai".
 */
export function embedderFromConfig(config: Pick<Config, "search" | "env">, fetchImpl?: typeof fetch): Embedder | undefined {
  const settings = config.search.embeddings;
  if (settings.provider === "none") return undefined;
  if (!settings.model) throw new ThinktankError("CONFIG_INVALID", `search.embeddings.model is required for provider '${settings.provider}'`);
  if (settings.provider === "openai-compatible" && !settings.base_url) {
    throw new ThinktankError("CONFIG_INVALID", "search.embeddings.base_url is required for provider 'openai-compatible'");
  }
  const keyVariable = settings.api_key_env ?? (settings.provider === "openai" ? "OPENAI_API_KEY" : undefined);
  const apiKey = keyVariable ? config.env[keyVariable] : undefined;
  if (settings.provider === "openai" && !apiKey) {
    throw new ThinktankError("NOT_CONFIGURED", `search.embeddings uses OpenAI but ${keyVariable} is not set`);
  }
  return new OpenAiCompatibleEmbedder({
    model: settings.model,
    ...(settings.base_url ? { baseUrl: settings.base_url } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
