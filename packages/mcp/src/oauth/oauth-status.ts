import { resolveServerConfig } from "../servers/resolve-server-config.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { hasTokensFor } from "./oauth-record.js";
import type { OAuthTokenStore } from "./oauth-token-store.js";

/** Where a server's sign-in stands; never a token or a secret. */
export interface OAuthStatus {
  readonly server: string;
  readonly grant: "authorization_code" | "client_credentials";
  /** Tokens are stored for the server's current URL. */
  readonly signed_in: boolean;
  readonly scopes?: readonly string[];
  /** ISO time the access token expires (it is refreshed before). */
  readonly expires_at?: string;
  /** A refresh token is stored. */
  readonly refreshable?: boolean;
  readonly signed_in_at?: string;
  /** Tokens are stored, but for the URL the server had before: they are not used. */
  readonly url_changed?: true;
  /** Last found to need sign-in (by whichever process connected), and why. */
  readonly needs_auth?: { readonly reason: string; readonly since: string };
}

/** A server's sign-in status from the store (OAUTH_STORE_UNREADABLE when this key cannot open it). */
export function oauthStatus(store: OAuthTokenStore, server: string, entry: McpServerEntry | undefined, env: Readonly<Record<string, string | undefined>>): OAuthStatus {
  const record = store.get(server);
  const resolution = entry ? resolveServerConfig(entry, { env }) : undefined;
  const config = resolution?.ok && resolution.config.transport !== "stdio" ? resolution.config : undefined;
  const url = config?.url ?? record?.url ?? "";
  const signedIn = hasTokensFor(record, url);
  const tokens = record?.url === url ? record.tokens : undefined;
  return {
    server,
    grant: config?.oauth?.grant ?? record?.grant ?? "authorization_code",
    signed_in: signedIn,
    ...(tokens?.scope ? { scopes: tokens.scope.split(" ").filter(Boolean) } : {}),
    ...(tokens?.expires_at !== undefined ? { expires_at: new Date(tokens.expires_at).toISOString() } : {}),
    ...(tokens ? { refreshable: tokens.refresh_token !== undefined } : {}),
    ...(record?.signed_in_at !== undefined && tokens ? { signed_in_at: new Date(record.signed_in_at).toISOString() } : {}),
    ...(record?.tokens && record.url !== url ? { url_changed: true as const } : {}),
    ...(record?.needs_auth && !signedIn ? { needs_auth: { reason: record.needs_auth.reason, since: new Date(record.needs_auth.since).toISOString() } } : {}),
  };
}
