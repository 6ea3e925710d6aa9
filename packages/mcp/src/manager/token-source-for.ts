import { ServerTokenSource } from "../oauth/server-token-source.js";
import type { ResolvedServerConfig } from "../servers/server-entry.js";
import type { OAuthTokenStore } from "../oauth/oauth-token-store.js";
import type { McpSettings } from "./manager-types.js";

/** What it reads of a managed server's context. */
export interface TokenSourceContext {
  readonly settings: McpSettings;
  readonly now: () => number;
  readonly oauthStore?: OAuthTokenStore;
}

/**
 * The bearer-token source of a remote server: none for stdio, and none when the entry sends its
 * own Authorization header (a static token is the user's choice, used as written).
 */
export function tokenSourceFor(server: string, config: ResolvedServerConfig, context: TokenSourceContext): ServerTokenSource | undefined {
  if (config.transport === "stdio") return undefined;
  if (Object.keys(config.headers).some((name) => name.toLowerCase() === "authorization")) return undefined;
  return new ServerTokenSource({
    server,
    url: config.url,
    settings: config.oauth,
    store: context.oauthStore,
    refreshBeforeMs: (context.settings.oauth?.refresh_before_seconds ?? 60) * 1000,
    timeoutMs: context.settings.connect_timeout_ms,
    clientName: context.settings.oauth?.client_name ?? "Thinktank",
    now: context.now,
  });
}
