import path from "node:path";
import { ThinktankError, type Config, type ModelConfig } from "@thinktank/core";

/** A model entry of config.yaml (or one the environment chose), checked to be usable, with its key read from `config.env`. */
export interface ResolvedModel {
  /** The key under models.providers, or the provider's name for an entry the environment chose. */
  readonly name: string;
  readonly model: ModelConfig;
  /** The API key, for providers that need one. Never logged. */
  readonly apiKey: string | undefined;
  /** For the scripted provider: the absolute script path, or undefined for the built-in demo script. */
  readonly scriptPath: string | undefined;
  /** Why this model was picked, for the start-up line ("models.default", "ANTHROPIC_API_KEY is set", ...). */
  readonly chosenBy: string;
}

const defaultKeyVariable: Readonly<Record<string, string>> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" };

/**
 * The models a key in the environment selects when config.yaml names none (packages/models/README.md,
 * "Which model runs use"), in this order: current models as the installed Anthropic and OpenAI SDKs list them.
 */
export const environmentModels: readonly { readonly variable: string; readonly provider: "anthropic" | "openai"; readonly model: string }[] = [
  { variable: "ANTHROPIC_API_KEY", provider: "anthropic", model: "claude-sonnet-5" },
  { variable: "OPENAI_API_KEY", provider: "openai", model: "gpt-5.4" },
];

const noKey = "no ANTHROPIC_API_KEY or OPENAI_API_KEY is set";

/**
 * Picks the model a run uses: `name`, else models.default, else the only configured model that is
 * not scripted, else the provider of the first key set in the environment (ANTHROPIC_API_KEY, then
 * OPENAI_API_KEY: its configured entry, or `environmentModels` when no other model is configured),
 * else the scripted demo (a configured scripted entry, or the built-in demo script).
 * Throws MODEL_NOT_CONFIGURED naming the config key or environment variable to set.
 */
export function resolveModel(config: Config, name?: string): ResolvedModel {
  const providers = config.models.providers;
  const names = Object.keys(providers);
  if (name !== undefined) return resolveEntry(config, name, "asked for by name");
  if (config.models.default !== undefined) return resolveEntry(config, config.models.default, "models.default");
  const real = names.filter((entry) => providers[entry]?.provider !== "scripted");
  if (real.length === 1) return resolveEntry(config, real[0] as string, "the only model in models.providers");
  for (const { variable, provider, model } of environmentModels) {
    if (!config.env[variable]) continue;
    const entry = names.find((candidate) => providers[candidate]?.provider === provider);
    if (entry !== undefined) return resolveEntry(config, entry, `${variable} is set`);
    if (real.length > 0) continue; // several configured models of other providers: models.default decides
    return { name: provider, model: { provider, model }, apiKey: config.env[variable], scriptPath: undefined, chosenBy: `${variable} is set` };
  }
  if (real.length > 1) {
    throw notConfigured(`No default chat model: set models.default in config.yaml to one of ${names.join(", ")}.`, { config_key: "models.default" });
  }
  const scripted = names.find((entry) => providers[entry]?.provider === "scripted");
  if (scripted !== undefined) return resolveEntry(config, scripted, noKey);
  return { name: "scripted", model: { provider: "scripted" }, apiKey: undefined, scriptPath: undefined, chosenBy: noKey };
}

/** One line for the start-up log: which model runs use and why, or what to set when none is usable. */
export function describeModelChoice(config: Config): string {
  let resolved: ResolvedModel;
  try {
    resolved = resolveModel(config);
  } catch (error) {
    return `model: none usable: ${error instanceof Error ? error.message : String(error)}`;
  }
  const { name, model, chosenBy } = resolved;
  if (model.provider === "scripted") {
    const script = resolved.scriptPath ? `script ${resolved.scriptPath}` : "the built-in demo script";
    if (chosenBy === noKey) return `model: the scripted demo (${script}), since ${noKey}: set one, or models.default, for a real model`;
    return `model: ${name}, scripted (${script}; ${chosenBy})`;
  }
  return `model: ${name}, ${model.provider} ${model.model ?? ""} (${chosenBy})`;
}

function resolveEntry(config: Config, chosen: string, chosenBy: string): ResolvedModel {
  const providers = config.models.providers;
  const names = Object.keys(providers);
  const configured = names.length > 0 ? ` (configured: ${names.join(", ")})` : "";
  const model = providers[chosen];
  if (!model) {
    const where = chosenBy === "models.default" ? `models.default is '${chosen}', but` : `the model '${chosen}' was asked for, but`;
    throw notConfigured(`${where} models.providers in config.yaml has no entry '${chosen}'${configured}.`, { config_key: `models.providers.${chosen}` });
  }
  const key = `models.providers.${chosen}`;
  if (model.provider === "scripted") {
    return { name: chosen, model, apiKey: undefined, scriptPath: model.script ? path.resolve(config.base_dir, model.script) : undefined, chosenBy };
  }
  if (!model.model) throw notConfigured(`The model '${chosen}' (${model.provider}) names no model: set ${key}.model in config.yaml.`, { config_key: `${key}.model` });
  if (model.provider === "openai-compatible" && !model.base_url) {
    throw notConfigured(`The model '${chosen}' (openai-compatible) needs the server's address: set ${key}.base_url in config.yaml (for example http://127.0.0.1:11434/v1 for Ollama).`, {
      config_key: `${key}.base_url`,
    });
  }
  const variable = model.api_key_env ?? defaultKeyVariable[model.provider];
  if (variable === undefined) return { name: chosen, model, apiKey: undefined, scriptPath: undefined, chosenBy };
  const apiKey = config.env[variable];
  if (apiKey === undefined || apiKey === "") {
    const named = model.api_key_env ? `named by ${key}.api_key_env` : `the default for ${model.provider}; another name goes in ${key}.api_key_env`;
    throw notConfigured(`The model '${chosen}' (${model.provider}) needs an API key: set the environment variable ${variable} (${named}).`, {
      variable,
      config_key: `${key}.api_key_env`,
    });
  }
  return { name: chosen, model, apiKey, scriptPath: undefined, chosenBy };
}

function notConfigured(message: string, details: Record<string, string>): ThinktankError {
  return new ThinktankError("MODEL_NOT_CONFIGURED", message, { details });
}
