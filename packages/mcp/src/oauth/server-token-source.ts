import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedOAuthSettings } from "../servers/server-entry.js";
import { readChallenge } from "./auth-challenge.js";
import type { AuthChallenge } from "./auth-challenge.js";
import { checkDiscovery } from "./check-discovery.js";
import { hasTokensFor } from "./oauth-record.js";
import type { OAuthRecord, StoredTokens } from "./oauth-record.js";
import type { OAuthTokenStore } from "./oauth-token-store.js";
import { RecordOAuthProvider } from "./record-oauth-provider.js";
import { sdkAuth } from "./sdk-auth.js";
import { stampTokens } from "./stamp-tokens.js";

export interface ServerTokenSourceOptions {
  readonly server: string;
  /** The server's resolved URL: tokens stored for another URL are not used. */
  readonly url: string;
  readonly settings: ResolvedOAuthSettings | undefined;
  /** Without a store the source only reads challenges (no tokens, no sign-in). */
  readonly store: OAuthTokenStore | undefined;
  /** Refresh this long before the access token expires. */
  readonly refreshBeforeMs: number;
  /** Bounds each request to the authorization server. */
  readonly timeoutMs: number;
  readonly clientName: string;
  readonly now: () => number;
  /** @default globalThis.fetch */
  readonly fetch?: FetchLike;
}

/**
 * The bearer token of one remote server, as a fetch for its SDK transport: adds the stored access
 * token, refreshes it shortly before it expires and once on a 401 (then tries the request once
 * more), and fetches client-credentials tokens. Refreshes run under the store's cross-process
 * lock and start by re-reading the file, so a token another process refreshed meanwhile is used
 * rather than refreshed again (a rotated refresh token is never spent twice).
 */
export class ServerTokenSource {
  /** Why the last request went without a usable token (for the status reason). */
  problem: string | undefined;
  lastChallenge: AuthChallenge | undefined;
  private renewing: Promise<string | undefined> | undefined;
  private readonly base: FetchLike;

  constructor(private readonly options: ServerTokenSourceOptions) {
    this.base = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** The fetch the transport uses. */
  readonly fetch: FetchLike = async (url, init) => {
    const token = await this.tokenForRequest();
    const response = await this.base(url, withBearer(init, token));
    if (response.status !== 401 && response.status !== 403) return response;
    const challenge = await readChallenge(response);
    if (response.status === 403 && challenge.error !== "insufficient_scope") return response;
    this.lastChallenge = challenge;
    if (response.status !== 401 || token === undefined || this.options.store === undefined) return response;
    const renewed = await this.renew(token);
    if (renewed === undefined) return response;
    await response.body?.cancel().catch(() => undefined);
    const again = await this.base(url, withBearer(init, renewed));
    if (again.status === 401) {
      this.lastChallenge = await readChallenge(again);
      this.problem = "the server refused a freshly refreshed access token; sign in again";
    }
    return again;
  };

  /**
   * Changes only with a new sign-in for this URL (not with refreshes): a server that needs
   * sign-in tries again once it changes, never in a loop.
   */
  revision(): string {
    let record: OAuthRecord | undefined;
    try {
      record = this.options.store?.get(this.options.server);
    } catch {
      return "unreadable";
    }
    // A record without a sign-in (the needs_auth mark, a sign-in under way) is no new sign-in.
    if (record?.signed_in_at === undefined) return "none";
    return record.url === this.options.url ? `signed-in:${record.signed_in_at}` : "other-url";
  }

  /** Notes in the store that the server needs sign-in (for the gateway's list), unless it already says so. */
  async markNeedsAuth(reason: string): Promise<void> {
    const store = this.options.store;
    if (!store || this.options.settings?.grant === "client_credentials") return;
    const { server, url } = this.options;
    const challenge = this.lastChallenge;
    await store.update(server, (current) => {
      if (current?.needs_auth?.reason === reason) return { record: "keep", result: undefined };
      const base: OAuthRecord = current ?? { server, url, grant: "authorization_code" };
      const mark = {
        reason,
        since: this.options.now(),
        ...(challenge?.scope ? { scope: challenge.scope } : {}),
        ...(challenge?.resourceMetadataUrl ? { resource_metadata_url: challenge.resourceMetadataUrl } : {}),
      };
      return { record: { ...base, needs_auth: mark }, result: undefined };
    });
  }

  private async tokenForRequest(): Promise<string | undefined> {
    const store = this.options.store;
    if (!store) return undefined;
    let record: OAuthRecord | undefined;
    try {
      record = store.get(this.options.server);
    } catch (error) {
      this.problem = (error as Error).message;
      return undefined;
    }
    if (!this.usable(record)) {
      if (this.options.settings?.grant === "client_credentials") return this.renew(undefined);
      this.problem = record?.tokens && record.url !== this.options.url ? "it was signed in for another URL (its url changed); sign in again" : "not signed in";
      return undefined;
    }
    const tokens = record.tokens;
    if (!this.expiring(tokens)) return tokens.access_token;
    const renewed = await this.renew(tokens.access_token);
    // A refresh that failed for now (the authorization server is down) still leaves a token that has not expired yet.
    return renewed ?? (tokens.expires_at !== undefined && tokens.expires_at > this.options.now() ? tokens.access_token : undefined);
  }

  /** Tokens for this URL, and for client credentials from this very client. */
  private usable(record: OAuthRecord | undefined): record is OAuthRecord & { tokens: StoredTokens } {
    if (!hasTokensFor(record, this.options.url)) return false;
    const settings = this.options.settings;
    return settings?.grant !== "client_credentials" || (record.grant === "client_credentials" && record.client?.client_id === settings.clientId);
  }

  private expiring(tokens: StoredTokens): boolean {
    return tokens.expires_at !== undefined && tokens.expires_at - this.options.refreshBeforeMs <= this.options.now();
  }

  /** One renewal at a time in this process; the store's lock orders them across processes. */
  private renew(stale: string | undefined): Promise<string | undefined> {
    this.renewing ??= this.renewLocked(stale).finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renewLocked(stale: string | undefined): Promise<string | undefined> {
    const store = this.options.store as OAuthTokenStore;
    const { server } = this.options;
    return store.update(server, async (current) => {
      const tokens = this.usable(current) ? current.tokens : undefined;
      // Someone else replaced the token we found stale or refused: use theirs.
      if (tokens && tokens.access_token !== stale && !this.expiring(tokens)) return { record: "keep", result: tokens.access_token };
      if (this.options.settings?.grant === "client_credentials") {
        const record = await this.clientCredentials(current);
        return { record, result: record.tokens?.access_token };
      }
      if (!current || !tokens?.refresh_token || !current.discovery) {
        this.problem = tokens ? "the access token expired and there is no refresh token; sign in again" : "not signed in";
        return { record: "keep", result: undefined };
      }
      return this.refresh(current, tokens);
    });
  }

  private async refresh(current: OAuthRecord, tokens: StoredTokens): Promise<{ record: OAuthRecord | "keep"; result: string | undefined }> {
    const discovery = current.discovery as OAuthDiscoveryState;
    const settings = this.options.settings;
    const client = settings?.clientId ? { client_id: settings.clientId, ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}) } : current.client;
    if (!client) {
      this.problem = "no OAuth client is known for this sign-in; sign in again";
      return { record: "keep", result: undefined };
    }
    const { refreshAuthorization, OAuthError, ServerError } = await sdkAuth();
    try {
      const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata ? { metadata: discovery.authorizationServerMetadata } : {}),
        clientInformation: client,
        refreshToken: tokens.refresh_token as string,
        ...(current.resource ? { resource: current.resource } : {}),
        fetchFn: this.timedFetch,
      });
      const stored = stampTokens(fresh, this.options.now(), tokens.issuer ?? discovery.authorizationServerUrl);
      this.problem = undefined;
      return { record: { ...withoutMark(current), tokens: stored }, result: stored.access_token };
    } catch (error) {
      if (!(error instanceof OAuthError) || error instanceof ServerError) throw error; // down for now: keep the tokens
      // Revoked or expired (invalid_grant), or the client is gone: these tokens are done for.
      this.problem = `the authorization server refused the refresh token (${error.errorCode}); sign in again`;
      const { tokens: _spent, ...rest } = current;
      return { record: rest, result: undefined };
    }
  }

  private async clientCredentials(current: OAuthRecord | undefined): Promise<OAuthRecord> {
    const { server, url, settings } = this.options;
    const known = current?.url === url && current.grant === "client_credentials" ? current.discovery : undefined;
    const provider = new RecordOAuthProvider({
      clientName: this.options.clientName,
      settings,
      ...(known ? { discovery: known } : settings?.tokenUrl ? { discovery: tokenUrlDiscovery(settings.tokenUrl) } : {}),
      checkDiscovery: (state) => checkDiscovery(server, state),
    });
    const { auth, OAuthError, ServerError } = await sdkAuth();
    try {
      await auth(provider, { serverUrl: url, ...(settings?.scopes ? { scope: settings.scopes } : {}), fetchFn: this.timedFetch });
    } catch (error) {
      if (!(error instanceof OAuthError) || error instanceof ServerError) throw error;
      throw new Error(`the authorization server refused the client credentials (${error.errorCode}: ${error.message})`, { cause: error });
    }
    const tokens = provider.staged.tokens;
    if (!tokens) throw new Error(`MCP server '${server}': the client credentials grant answered no token`);
    const discovery = provider.discoveryState();
    const now = this.options.now();
    this.problem = undefined;
    // The client id (never the secret) binds the tokens to the configured client.
    const client = { client_id: settings?.clientId as string };
    return { server, url, grant: "client_credentials", tokens: stampTokens(tokens, now, discovery?.authorizationServerUrl), client, ...(discovery ? { discovery } : {}), signed_in_at: now };
  }

  private readonly timedFetch: FetchLike = (url, init) => this.base(url, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs) });
}

/** A configured token_url stands in for discovery: its origin is the issuer. */
function tokenUrlDiscovery(tokenUrl: string): OAuthDiscoveryState {
  const issuer = new URL("/", tokenUrl).href;
  return {
    authorizationServerUrl: issuer,
    authorizationServerMetadata: { issuer, token_endpoint: tokenUrl, authorization_endpoint: tokenUrl, response_types_supported: ["code"] },
  };
}

function withoutMark(record: OAuthRecord): OAuthRecord {
  const { needs_auth: _mark, ...rest } = record;
  return rest;
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit | undefined {
  if (token === undefined) return init;
  const headers = new Headers(init?.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
}
