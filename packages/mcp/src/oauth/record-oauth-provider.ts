import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { ResolvedOAuthSettings } from "../servers/server-entry.js";

export interface RecordOAuthProviderOptions {
  /** The callback of an interactive sign-in; absent for client credentials (the SDK then fetches tokens directly). */
  readonly redirectUrl?: string;
  readonly clientName: string;
  /** A client ID metadata document URL, used where the authorization server supports it. */
  readonly clientMetadataUrl?: string;
  readonly settings: ResolvedOAuthSettings | undefined;
  /** A client registered for us earlier (from the store). */
  readonly registered?: OAuthClientInformationMixed;
  /** Discovery done earlier (a sign-in's callback reuses its start's). */
  readonly discovery?: OAuthDiscoveryState;
  /** Checks freshly discovered metadata before anything is sent to it; throws to stop. */
  readonly checkDiscovery: (state: OAuthDiscoveryState) => void;
  /** The `state` parameter of the authorization request. */
  readonly state?: string;
}

/** What the SDK handed back during one auth() run, kept in memory until the caller stores it. */
export interface StagedOAuth {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
  codeVerifier?: string;
  authorizationUrl?: URL;
}

/**
 * The SDK's OAuthClientProvider for one sign-in or one client-credentials grant. Nothing is
 * written while the SDK runs: what it saves is staged here and the caller stores it (under the
 * store's lock) once the whole exchange succeeded, so a failed or hostile exchange stores nothing.
 * `tokens()` is always empty: a sign-in asks anew, and refreshes are done by the token source.
 */
export class RecordOAuthProvider implements OAuthClientProvider {
  readonly staged: StagedOAuth = {};
  private registered: OAuthClientInformationMixed | undefined;

  constructor(private readonly options: RecordOAuthProviderOptions) {
    this.registered = options.registered;
  }

  get redirectUrl(): string | undefined {
    return this.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.options.settings?.clientSecret !== undefined;
    const interactive = this.options.redirectUrl !== undefined;
    return {
      client_name: this.options.clientName,
      redirect_uris: interactive ? [this.options.redirectUrl as string] : [],
      grant_types: interactive ? ["authorization_code", "refresh_token"] : ["client_credentials"],
      response_types: interactive ? ["code"] : [],
      token_endpoint_auth_method: secret ? "client_secret_basic" : "none",
      ...(this.options.settings?.scopes ? { scope: this.options.settings.scopes } : {}),
    };
  }

  state(): string {
    return this.options.state ?? "";
  }

  /** A configured client wins; else the registered one, unless it was registered for another redirect URI. */
  clientInformation(): OAuthClientInformationMixed | undefined {
    const settings = this.options.settings;
    if (settings?.clientId) return { client_id: settings.clientId, ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}) };
    const client = this.staged.client ?? this.registered;
    const redirectUris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (client && this.options.redirectUrl && Array.isArray(redirectUris) && !redirectUris.includes(this.options.redirectUrl)) return undefined;
    return client;
  }

  /** The client to keep in the store after a sign-in: the registered one (a configured client stays in the config). */
  storableClient(): OAuthClientInformationMixed | undefined {
    return this.options.settings?.clientId ? undefined : this.clientInformation();
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    if (this.options.settings?.clientId) return; // the configured client stays in the config, never in the store
    this.staged.client = information;
  }

  tokens(): undefined {
    return undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.staged.tokens = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.staged.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.staged.codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.staged.codeVerifier === undefined) throw new Error("no PKCE code verifier was saved for this sign-in");
    return this.staged.codeVerifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.staged.discovery ?? this.options.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.options.checkDiscovery(state);
    this.staged.discovery = state;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.options.redirectUrl !== undefined) return undefined; // the SDK's authorization_code request
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) params.set("scope", scope);
    return params;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") {
      this.registered = undefined;
      delete this.staged.client;
    }
    if (scope === "all" || scope === "tokens") delete this.staged.tokens;
    if (scope === "all" || scope === "discovery") delete this.staged.discovery;
  }
}
