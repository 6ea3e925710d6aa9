import type { Config } from "../config/config-types.js";
import { referencedVariables } from "./expand-variables.js";

/** The variables the built-in model providers read their keys from when config names none. */
const defaultModelKeyVariables = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"] as const;

/**
 * Whether a variable holds one of the service's own secrets, which no third-party entry may have
 * expanded into what it is given: Thinktank's own (`THINKTANK_*`: the API key, the secret key, ...)
 * and every key variable config names (`models.providers.*.api_key_env`, the embeddings' and
 * web_search's `api_key_env`), with the providers' defaults ANTHROPIC_API_KEY and OPENAI_API_KEY.
 * Without a config: `THINKTANK_*` and those two defaults.
 */
export function serviceSecretVariables(config?: Pick<Config, "models" | "search" | "web_search">): (name: string) => boolean {
  const named = new Set<string>(defaultModelKeyVariables);
  for (const model of Object.values(config?.models.providers ?? {})) if (model.api_key_env) named.add(model.api_key_env);
  if (config?.search.embeddings.api_key_env) named.add(config.search.embeddings.api_key_env);
  if (config?.web_search.api_key_env) named.add(config.web_search.api_key_env);
  return (name) => name.startsWith("THINKTANK_") || named.has(name);
}

/**
 * The first variable a `${VAR}`, `${VAR:-default}` or `$VAR` placeholder anywhere in `value`
 * (strings inside objects and arrays; keys are not expanded, so not looked at) names and
 * `isProtected` refuses; undefined when there is none.
 */
export function protectedReference(value: unknown, isProtected: (name: string) => boolean): string | undefined {
  if (typeof value === "string") return referencedVariables(value).find(isProtected);
  if (value === null || typeof value !== "object") return undefined;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const found = protectedReference(child, isProtected);
    if (found !== undefined) return found;
  }
  return undefined;
}
