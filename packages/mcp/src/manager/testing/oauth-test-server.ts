export interface OAuthTestServerOptions {
  /** Lifetime of access tokens. @default 3600 */
  readonly accessTokenTtlSeconds?: number;
  /** RFC 7591 dynamic client registration at /register. @default true */
  readonly dynamicRegistration?: boolean;
  /** Clients allowed the client_credentials grant: client_id → client_secret. @default none */
  readonly clientCredentials?: Readonly<Record<string, string>>;
  /** Scopes the server advertises. @default ["mcp"] */
  readonly scopes?: readonly string[];
  /** Scopes a token needs at the MCP endpoints (fewer: 403 insufficient_scope). @default scopes */
  readonly requiredScopes?: readonly string[];
  /**
   * Client ID metadata documents: the metadata advertises `client_id_metadata_document_supported`,
   * and a client_id that is an https URL is fetched and used if the document names that client_id
   * and its redirect URIs. `ca`: the certificate to trust for it (a test's loopback https server).
   * @default false
   */
  readonly clientMetadataDocuments?: boolean | { readonly ca?: string };
  /** Hostile: serve metadata whose token_endpoint is on this other host name (e.g. "localhost"). */
  readonly tokenEndpointHost?: string;
}

/** A client registered ahead of time (the "pre-registered client" of the MCP authorization spec). */
export interface PreRegisteredClient {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method?: "none" | "client_secret_post" | "client_secret_basic";
}

export interface OAuthTestServerStats {
  readonly registrations: number;
  /** Requests to /register, whether or not they registered a client. */
  readonly registrationRequests: number;
  /** Client ID metadata documents fetched. */
  readonly metadataDocumentFetches: number;
  readonly codeExchanges: number;
  readonly refreshes: number;
  /** A spent refresh token presented again (its family is revoked, as real servers do). */
  readonly refreshReuses: number;
  readonly revocations: number;
  readonly clientCredentials: number;
  /** Access tokens refused by the MCP endpoints. */
  readonly rejectedTokens: number;
  readonly toolCalls: number;
  /** 401 answers of the MCP endpoints. */
  readonly unauthorized: number;
}

/**
 * A protected MCP server (tools `whoami` and `add`) and its authorization server on one
 * 127.0.0.1 port, made of the MCP SDK's server auth pieces: streamable HTTP at `mcpUrl`, legacy
 * SSE at `sseUrl`. The consent page is followed with `approve()` / `deny()`.
 */
export interface OAuthTestServer {
  readonly origin: string;
  readonly issuer: string;
  readonly mcpUrl: string;
  readonly sseUrl: string;
  /** The same tools on the v2 SDK, speaking only the 2026-07-28 era (streamable HTTP, stateless). */
  readonly modernMcpUrl: string;
  stats(): OAuthTestServerStats;
  /** Every access and refresh token issued so far (to prove none leaks anywhere). */
  issuedTokens(): readonly string[];
  addClient(client: PreRegisteredClient): void;
  /**
   * Opens the authorization URL, approves on the consent page, and answers the redirect back to the
   * client (not followed). `account` names who approved: every token of that grant carries it, and
   * the `whoami` tool answers it (so a test sees whose token a call came with).
   */
  approve(authorizationUrl: string, options?: { readonly account?: string }): Promise<string>;
  deny(authorizationUrl: string): Promise<string>;
  /** Makes every access token issued so far invalid (the MCP endpoints answer 401). */
  expireAccessTokens(): void;
  /** Revokes every refresh token issued so far. */
  revokeRefreshTokens(): void;
  /** Changes the scopes a token needs at the MCP endpoints from now on. */
  requireScopes(scopes: readonly string[]): void;
  close(): Promise<void>;
}

interface AppRecord {
  readonly issued: string[];
  readonly stats: Omit<OAuthTestServerStats, "toolCalls" | "unauthorized" | "registrationRequests">;
  readonly accessTokens: Map<string, { revoked: boolean }>;
  readonly refreshTokens: Map<string, { revoked: boolean }>;
  addClient(client: PreRegisteredClient): void;
}

interface RunningApp {
  readonly origin: string;
  readonly issuer: string;
  readonly mcpUrl: string;
  readonly sseUrl: string;
  readonly modernMcpUrl: string;
  readonly provider: AppRecord;
  readonly counters: { toolCalls: number; unauthorized: number; registrationRequests: number };
  requireScopes(scopes: readonly string[]): void;
  close(): Promise<void>;
}

// Loaded by URL: the app is plain JavaScript on express, whose types this repository does not install.
const appModule = new URL("./oauth-test-app.mjs", import.meta.url).href;

/** Starts an OAuthTestServer on a free 127.0.0.1 port. */
export async function startOAuthTestServer(options: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
  const { startOAuthTestApp } = (await import(appModule)) as { startOAuthTestApp: (options: OAuthTestServerOptions) => Promise<RunningApp> };
  const app = await startOAuthTestApp(options);
  const consent = async (authorizationUrl: string, answer: "approve" | "deny", account?: string): Promise<string> => {
    const page = await fetch(authorizationUrl, { redirect: "manual" });
    const redirected = page.headers.get("location");
    if (redirected) return redirected;
    const html = await page.text();
    const link = new RegExp(`id="${answer}" href="([^"]+)"`).exec(html)?.[1];
    if (!link) throw new Error(`the authorization page did not offer to ${answer} (HTTP ${page.status}): ${html.slice(0, 300)}`);
    const target = new URL(link.replaceAll("&amp;", "&"), app.origin);
    if (account !== undefined) target.searchParams.set("account", account);
    const answered = await fetch(target, { redirect: "manual" });
    const location = answered.headers.get("location");
    if (!location) throw new Error(`the consent answer did not redirect (HTTP ${answered.status})`);
    return location;
  };
  return {
    origin: app.origin,
    issuer: app.issuer,
    mcpUrl: app.mcpUrl,
    sseUrl: app.sseUrl,
    modernMcpUrl: app.modernMcpUrl,
    stats: () => ({ ...app.provider.stats, ...app.counters }),
    issuedTokens: () => [...app.provider.issued],
    addClient: (client) => app.provider.addClient({ token_endpoint_auth_method: client.client_secret ? "client_secret_post" : "none", ...client }),
    approve: (url, options) => consent(url, "approve", options?.account),
    deny: (url) => consent(url, "deny"),
    expireAccessTokens: () => {
      for (const record of app.provider.accessTokens.values()) record.revoked = true;
    },
    revokeRefreshTokens: () => {
      for (const record of app.provider.refreshTokens.values()) record.revoked = true;
    },
    requireScopes: (scopes) => app.requireScopes(scopes),
    close: () => app.close(),
  };
}
