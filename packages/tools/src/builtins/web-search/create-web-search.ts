import type { Config } from "@thinktank/core";
import type { ExecutionLog } from "../../log/execution-log.js";
import { BraveProvider, braveBaseUrl } from "./brave-provider.js";
import { SearxngProvider } from "./searxng-provider.js";
import { TavilyProvider, tavilyBaseUrl } from "./tavily-provider.js";
import { WebSearch } from "./web-search.js";
import type { FetchFunction, WebSearchProvider } from "./web-search-types.js";

/** The environment variable a provider's key is read from when web_search.api_key_env names none. */
export const defaultApiKeyVariables = { tavily: "TAVILY_API_KEY", brave: "BRAVE_API_KEY" } as const;

export interface CreateWebSearchOptions {
  readonly log?: ExecutionLog;
  /** @default the global fetch */
  readonly fetch?: FetchFunction;
}

/**
 * web_search from config.yaml's `web_search` section: `provider` tavily | brave (key from the
 * environment variable `api_key_env` names; `url` overrides the API's base URL) or searxng (`url`
 * is the instance). Anything missing leaves the tool unavailable, with the reason.
 */
export function createWebSearch(config: Pick<Config, "web_search" | "env">, options: CreateWebSearchOptions = {}): WebSearch {
  const settings = config.web_search;
  const { provider, reason } = pickProvider(config, options.fetch ?? fetch);
  return new WebSearch({
    provider,
    ...(reason ? { notConfiguredReason: reason } : {}),
    timeoutMs: settings.timeout_ms,
    defaultResults: settings.max_results,
    ...(options.log ? { log: options.log } : {}),
  });
}

function pickProvider(config: Pick<Config, "web_search" | "env">, fetchFunction: FetchFunction): { provider?: WebSearchProvider; reason?: string } {
  const settings = config.web_search;
  switch (settings.provider) {
    case "none":
      return { reason: "web_search is not configured (web_search.provider is none)" };
    case "searxng":
      if (!settings.url) return { reason: "web_search.provider is searxng but web_search.url (the instance) is not set" };
      return { provider: new SearxngProvider(settings.url, fetchFunction) };
    case "tavily":
    case "brave": {
      const variable = settings.api_key_env ?? defaultApiKeyVariables[settings.provider];
      const key = config.env[variable];
      if (!key) return { reason: `web_search.provider is ${settings.provider} but the environment variable ${variable} (web_search.api_key_env) holds no API key` };
      return settings.provider === "tavily"
        ? { provider: new TavilyProvider(key, settings.url ?? tavilyBaseUrl, fetchFunction) }
        : { provider: new BraveProvider(key, settings.url ?? braveBaseUrl, fetchFunction) };
    }
  }
}
