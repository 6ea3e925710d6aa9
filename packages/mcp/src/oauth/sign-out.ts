import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { resolveServerConfig } from "../servers/resolve-server-config.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import type { OAuthTokenStore } from "./oauth-token-store.js";
import { revokeToken } from "./revoke-token.js";

export interface SignOutResult {
  readonly server: string;
  /** Something was stored for it and is gone now. */
  readonly forgotten: boolean;
  /** The authorization server revoked the tokens (RFC 7009). */
  readonly revoked: boolean;
  /** Why they were not revoked, when they were not. */
  readonly revocation?: string;
}

/**
 * Forgets a server's tokens (and its registered client), then asks the authorization server to
 * revoke the refresh and access tokens where it has a revocation endpoint. The tokens are gone
 * from the store whatever the revocation answers.
 */
export async function signOut(options: {
  readonly store: OAuthTokenStore;
  readonly server: string;
  /** The server's current entry, for a configured client's credentials; absent once it was removed. */
  readonly entry: McpServerEntry | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: FetchLike;
}): Promise<SignOutResult> {
  const { server } = options;
  const removed = await options.store.update(server, (current) => ({ record: undefined, result: current }));
  if (!removed?.tokens) return { server, forgotten: removed !== undefined, revoked: false, ...(removed ? { revocation: "no tokens were stored" } : {}) };
  // OpenID provider metadata has no revocation fields in the SDK's types; RFC 8414 metadata does.
  const metadata = removed.discovery?.authorizationServerMetadata as { revocation_endpoint?: string; revocation_endpoint_auth_methods_supported?: string[]; token_endpoint_auth_methods_supported?: string[] } | undefined;
  const endpoint = metadata?.revocation_endpoint;
  if (!endpoint) return { server, forgotten: true, revoked: false, revocation: "the authorization server has no revocation endpoint" };
  const resolution = options.entry ? resolveServerConfig(options.entry, { env: options.env }) : undefined;
  const settings = resolution?.ok && resolution.config.transport !== "stdio" ? resolution.config.oauth : undefined;
  const client = settings?.clientId ? { client_id: settings.clientId, ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}) } : removed.client;
  if (!client) return { server, forgotten: true, revoked: false, revocation: "no OAuth client is known to revoke with" };
  const authMethods = metadata?.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported ?? [];
  try {
    if (removed.tokens.refresh_token) await revokeToken({ endpoint, token: removed.tokens.refresh_token, tokenTypeHint: "refresh_token", client, authMethods, fetch: options.fetch });
    await revokeToken({ endpoint, token: removed.tokens.access_token, tokenTypeHint: "access_token", client, authMethods, fetch: options.fetch });
    return { server, forgotten: true, revoked: true };
  } catch (error) {
    return { server, forgotten: true, revoked: false, revocation: (error as Error).message.slice(0, 200) };
  }
}
