import path from "node:path";
import { ThinktankError, type Config, type ModelConfig } from "@thinktank/core";

/** A model entry of config.yaml, checked to be usable, with its key read from `config.env`. */
export interface ResolvedModel {
  /** The key under models.providers. */
  readonly name: string;
  readonly model: ModelConfig;
  /** The API key, for providers that need one. Never logged. */
  readonly apiKey: string | undefined;
  /** For the scripted provider: the absolute script path, or undefined for the built-in demo script. */
  readonly scriptPath: string | undefined;
}

const defaultKeyVariable: Readonly<Record<string, string>> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" };

/**
 * Picks the model a run uses: `name`, else models.default, else the only configured provider.
 * Throws MODEL_NOT_CONFIGURED naming the config key or environment variable to set.
 */
export function resolveModel(config: Config, name?: string): ResolvedModel {
  const providers = config.models.providers;
  const names = Object.keys(providers);
  const configured = names.length > 0 ? ` (configured: ${names.join(", ")})` : "";
  const chosen = name ?? config.models.default ?? (names.length === 1 ? names[0] : undefined);
  if (chosen === undefined) {
    throw notConfigured(
      names.length === 0
        ? "No chat model is configured: add one under models.providers in config.yaml (for example `claude: { provider: anthropic, model: claude-sonnet-4-5, api_key_env: ANTHROPIC_API_KEY }`) and name it in models.default."
        : `No default chat model: set models.default in config.yaml to one of ${names.join(", ")}.`,
      { config_key: "models.default" },
    );
  }
  const model = providers[chosen];
  if (!model) {
    const where = name === undefined ? `models.default is '${chosen}', but` : `the model '${chosen}' was asked for, but`;
    throw notConfigured(`${where} models.providers in config.yaml has no entry '${chosen}'${configured}.`, { config_key: `models.providers.${chosen}` });
  }
  const key = `models.providers.${chosen}`;
  if (model.provider === "scripted") {
    return { name: chosen, model, apiKey: undefined, scriptPath: model.script ? path.resolve(config.base_dir, model.script) : undefined };
  }
  if (!model.model) throw notConfigured(`The model '${chosen}' (${model.provider}) names no model: set ${key}.model in config.yaml.`, { config_key: `${key}.model` });
  if (model.provider === "openai-compatible" && !model.base_url) {
    throw notConfigured(`The model '${chosen}' (openai-compatible) needs the server's address: set ${key}.base_url in config.yaml (for example http://127.0.0.1:11434/v1 for Ollama).`, {
      config_key: `${key}.base_url`,
    });
  }
  const variable = model.api_key_env ?? defaultKeyVariable[model.provider];
  if (variable === undefined) return { name: chosen, model, apiKey: undefined, scriptPath: undefined };
  const apiKey = config.env[variable];
  if (apiKey === undefined || apiKey === "") {
    const named = model.api_key_env ? `named by ${key}.api_key_env` : `the default for ${model.provider}; another name goes in ${key}.api_key_env`;
    throw notConfigured(`The model '${chosen}' (${model.provider}) needs an API key: set the environment variable ${variable} (${named}).`, {
      variable,
      config_key: `${key}.api_key_env`,
    });
  }
  return { name: chosen, model, apiKey, scriptPath: undefined };
}

function notConfigured(message: string, details: Record<string, string>): ThinktankError {
  return new ThinktankError("MODEL_NOT_CONFIGURED", message, { details });
}
