import crypto from "node:crypto";
import path from "node:path";
import type { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { operatorId, ThinktankError } from "@thinktank/core";
import type { McpServerEntry } from "../servers/server-entry.js";
import { checkDiscovery } from "./check-discovery.js";
import type { OAuthTokenStore } from "./oauth-token-store.js";
import { PendingSignIns } from "./pending-sign-ins.js";
import type { PendingSignIn } from "./pending-sign-ins.js";
import { probeChallenge } from "./probe-challenge.js";
import { RecordOAuthProvider } from "./record-oauth-provider.js";
import { sdkAuth } from "./sdk-auth.js";
import { signInTarget } from "./sign-in-target.js";
import { stampTokens } from "./stamp-tokens.js";

export interface OAuthSignInOptions {
  readonly store: OAuthTokenStore;
  /** The variables placeholders resolve from (config.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Sent with dynamic client registration (config.mcp.oauth.client_name). */
  readonly clientName: string;
  /** config.mcp.oauth.client_metadata_url: the client_id where the authorization server takes metadata documents. */
  readonly clientMetadataUrl?: string | undefined;
  /** How long a started sign-in waits for its callback (config.mcp.oauth.sign_in_timeout_seconds). */
  readonly pendingTtlMs: number;
  /** Bounds each request to the MCP server or the authorization server. */
  readonly timeoutMs: number;
  /** Sign-ins waiting for their callback at once (the oldest is dropped past it). @default 100 */
  readonly maxPending?: number;
  /** @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /** @default Date.now */
  readonly now?: () => number;
}

/** The callback's query parameters (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export interface CallbackParams {
  readonly state?: string | undefined;
  readonly code?: string | undefined;
  readonly error?: string | undefined;
  readonly error_description?: string | undefined;
  readonly iss?: string | undefined;
}

export interface SignInStarted {
  readonly server: string;
  /** Who signs in. */
  readonly user: string;
  readonly authorizationUrl: string;
  /** Epoch ms: the callback must come before. */
  readonly expiresAt: number;
}

export interface SignInFinished {
  readonly server: string;
  /** Whose tokens were stored (the user who started the sign-in). */
  readonly user: string;
  readonly scopes: readonly string[];
  /** Where the sign-in asked to go back to (checked when it started). */
  readonly returnTo?: string;
}

/**
 * Interactive OAuth 2.1 sign-in to a remote MCP server, on the SDK's auth(): discovery (RFC 9728,
 * then RFC 8414 or OpenID metadata, checked by checkDiscovery), client registration (a configured
 * client, a client ID metadata document, or RFC 7591), PKCE S256, `state`, the RFC 8707 resource.
 * `start` answers the authorization URL; `finish` takes the callback, exchanges the code and only
 * then stores the tokens. A `state` is good for one callback within the sign-in timeout. Started
 * sign-ins are kept sealed beside the tokens (PendingSignIns), so the callback may reach any
 * process on the same folder (gateways behind one address), and still works only once. Tokens
 * are kept per (user, server): a sign-in is started for one user (`user`, the caller's id) and its
 * callback, which carries no credentials of its own, stores the tokens for that user only.
 */
export class OAuthSignIn {
  private readonly pending: PendingSignIns;
  private readonly fetch: FetchLike;
  private readonly now: () => number;

  constructor(private readonly options: OAuthSignInOptions) {
    const base = options.fetch ?? ((url, init) => fetch(url, init));
    this.fetch = (url, init) => base(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
    this.now = options.now ?? Date.now;
    this.pending = new PendingSignIns({ dir: path.join(options.store.dir, "pending"), key: () => options.store.secretKey(), max: options.maxPending ?? 100 });
  }

  /** Starts `user`'s sign-in (default the operator) whose callback is `redirectUrl`; answers the URL to open in a browser. */
  async start(server: string, entry: McpServerEntry, options: { readonly redirectUrl: string; readonly returnTo?: string; readonly user?: string }): Promise<SignInStarted> {
    const user = options.user ?? operatorId;
    const target = signInTarget(server, entry, this.options.env);
    const settings = target.config.oauth;
    if (settings?.grant === "client_credentials") {
      throw new ThinktankError("OAUTH_NOT_APPLICABLE", `MCP server '${server}' uses the client_credentials grant: its tokens are fetched without a sign-in`, { details: { server } });
    }
    const challenge = await probeChallenge(target.config, this.fetch).catch((error: unknown) => {
      throw unreachable(server, error);
    });
    const state = crypto.randomBytes(32).toString("base64url");
    const stored = this.options.store.forUser(user).get(server);
    const provider = new RecordOAuthProvider({
      redirectUrl: options.redirectUrl,
      clientName: this.options.clientName,
      ...(this.options.clientMetadataUrl ? { clientMetadataUrl: this.options.clientMetadataUrl } : {}),
      settings,
      ...(stored?.client && stored.url === target.config.url ? { registered: stored.client } : {}),
      checkDiscovery: (discovery) => checkDiscovery(server, discovery),
      state,
    });
    const { auth, OAuthError } = await sdkAuth();
    try {
      // The configured scopes plus what the server's challenge asks for (without either, the SDK uses the metadata's).
      const scope = [...new Set(`${settings?.scopes ?? ""} ${challenge?.scope ?? ""}`.split(" ").filter(Boolean))].join(" ");
      await auth(provider, {
        serverUrl: target.config.url,
        ...(scope ? { scope } : {}),
        ...(challenge?.resourceMetadataUrl ? { resourceMetadataUrl: new URL(challenge.resourceMetadataUrl) } : {}),
        fetchFn: this.fetch,
      });
    } catch (error) {
      // Where documents would have worked, say so: the fix is then one setting for every server.
      const documents = !this.options.clientMetadataUrl && provider.discoveryState()?.authorizationServerMetadata?.client_id_metadata_document_supported === true;
      throw signInFailure(server, error, OAuthError, documents);
    }
    const authorizationUrl = provider.staged.authorizationUrl;
    if (!authorizationUrl) throw new ThinktankError("OAUTH_AUTHORIZATION_FAILED", `MCP server '${server}': the authorization server gave no authorization URL`, { details: { server } });
    const now = this.now();
    const expiresAt = now + this.options.pendingTtlMs;
    const { codeVerifier } = provider.staged;
    const discovery = provider.discoveryState();
    const client = provider.storableClient();
    await this.pending.put(
      {
        server,
        ...(user !== operatorId ? { user } : {}),
        url: target.config.url,
        ...(settings ? { settings } : {}),
        redirect_url: options.redirectUrl,
        state,
        ...(codeVerifier !== undefined ? { code_verifier: codeVerifier } : {}),
        ...(discovery ? { discovery } : {}),
        ...(client ? { client } : {}),
        ...(options.returnTo ? { return_to: options.returnTo } : {}),
        started_at: now,
        expires_at: expiresAt,
      },
      now,
    );
    return { server, user, authorizationUrl: authorizationUrl.href, expiresAt };
  }

  /**
   * Completes a sign-in from its callback, for the user who started it. `lookup` answers the
   * server's current entry as that user sees it: a server removed meanwhile is
   * MCP_SERVER_NOT_FOUND, one whose URL changed OAUTH_SERVER_CHANGED. Nothing is stored unless
   * the code exchange succeeds.
   */
  async finish(params: CallbackParams, lookup: (server: string, user: string) => Promise<McpServerEntry | undefined>): Promise<SignInFinished> {
    const pending = params.state ? await this.pending.take(params.state, this.now()) : undefined;
    if (!pending) throw new ThinktankError("OAUTH_STATE_INVALID", "this sign-in callback's state is unknown, already used or expired: start the sign-in again");
    const { server } = pending;
    const user = pending.user ?? operatorId;
    if (params.error) {
      const why = params.error_description ? `${params.error}: ${params.error_description}` : params.error;
      throw new ThinktankError("OAUTH_AUTHORIZATION_FAILED", `MCP server '${server}': the sign-in was not granted (${why.slice(0, 200)})`, { details: { server, error: params.error.slice(0, 100) } });
    }
    if (!params.code) throw new ThinktankError("OAUTH_AUTHORIZATION_FAILED", `MCP server '${server}': the callback carries no code`, { details: { server } });
    const entry = await lookup(server, user);
    if (!entry) throw new ThinktankError("MCP_SERVER_NOT_FOUND", `MCP server '${server}' is no longer configured; nothing was stored`, { details: { server } });
    const current = signInTarget(server, entry, this.options.env);
    if (current.config.url !== pending.url) {
      throw new ThinktankError("OAUTH_SERVER_CHANGED", `MCP server '${server}' changed its URL while signing in; nothing was stored: sign in again`, { details: { server } });
    }
    const provider = this.providerOf(pending);
    const discovery = provider.discoveryState();
    const issuer = discovery?.authorizationServerMetadata?.issuer;
    // RFC 9207: an `iss` that names another authorization server is a mix-up attack.
    if (params.iss !== undefined && issuer !== undefined && params.iss.replace(/\/$/, "") !== issuer.replace(/\/$/, "")) {
      throw new ThinktankError("OAUTH_AUTHORIZATION_FAILED", `MCP server '${server}': the callback comes from another authorization server than the one asked`, { details: { server } });
    }
    const { auth, selectResourceURL, OAuthError } = await sdkAuth();
    try {
      await auth(provider, { serverUrl: pending.url, authorizationCode: params.code, fetchFn: this.fetch });
    } catch (error) {
      throw signInFailure(server, error, OAuthError);
    }
    const tokens = provider.staged.tokens;
    if (!tokens) throw new ThinktankError("OAUTH_AUTHORIZATION_FAILED", `MCP server '${server}': the token endpoint answered no token`, { details: { server } });
    const resource = discovery?.resourceMetadata && (await selectResourceURL(pending.url, provider, discovery.resourceMetadata).catch(() => undefined)) ? discovery.resourceMetadata.resource : undefined;
    const client = provider.storableClient();
    const now = this.now();
    await this.options.store.forUser(user).update(server, () => ({
      record: {
        server,
        url: pending.url,
        grant: "authorization_code",
        tokens: stampTokens(tokens, now, (tokens as { issuer?: string }).issuer ?? discovery?.authorizationServerUrl),
        ...(client ? { client } : {}),
        ...(discovery ? { discovery } : {}),
        ...(resource ? { resource } : {}),
        signed_in_at: now,
      },
      result: undefined,
    }));
    return { server, user, scopes: tokens.scope ? tokens.scope.split(" ").filter(Boolean) : [], ...(pending.return_to ? { returnTo: pending.return_to } : {}) };
  }

  /** Whether a callback with this state would be taken (for answering with the right redirect). */
  returnToOf(state: string | undefined): string | undefined {
    return state ? this.pending.peek(state, this.now())?.return_to : undefined;
  }

  /** The provider of a started sign-in, rebuilt from what its start staged (any process can finish it). */
  private providerOf(pending: PendingSignIn): RecordOAuthProvider {
    const provider = new RecordOAuthProvider({
      redirectUrl: pending.redirect_url,
      clientName: this.options.clientName,
      ...(this.options.clientMetadataUrl ? { clientMetadataUrl: this.options.clientMetadataUrl } : {}),
      settings: pending.settings,
      ...(pending.client ? { registered: pending.client } : {}),
      ...(pending.discovery ? { discovery: pending.discovery } : {}),
      checkDiscovery: (discovery) => checkDiscovery(pending.server, discovery),
      state: pending.state,
    });
    if (pending.code_verifier !== undefined) provider.saveCodeVerifier(pending.code_verifier);
    return provider;
  }
}

/** An error of the SDK's auth() as one of ours, with nothing secret in it (`refusal`: the SDK's OAuthError, loaded with auth()). */
function signInFailure(server: string, error: unknown, refusal: typeof OAuthError, takesDocuments = false): ThinktankError {
  if (error instanceof ThinktankError) return error;
  const message = error instanceof Error ? error.message.replace(/\s+/g, " ").slice(0, 300) : String(error);
  if (error instanceof refusal) {
    return new ThinktankError("OAUTH_AUTHORIZATION_FAILED", `MCP server '${server}': the authorization server refused (${error.errorCode}${message ? `: ${message}` : ""})`, { details: { server, error: error.errorCode } });
  }
  if (/does not support dynamic client registration/i.test(message)) {
    return new ThinktankError("OAUTH_NOT_APPLICABLE", `MCP server '${server}': its authorization server takes no dynamic registration; set oauth.client_id (and client_secret) in its entry${takesDocuments ? ", or mcp.oauth.client_metadata_url (it takes client ID metadata documents)" : ""}`, { details: { server } });
  }
  if (/Protected resource .* does not match|Incompatible auth server|ZodError|invalid_type|Invalid input/i.test(message) || (error as { name?: string })?.name === "ZodError") {
    return new ThinktankError("OAUTH_METADATA_REJECTED", `MCP server '${server}': its OAuth metadata cannot be used: ${message}`, { details: { server } });
  }
  return unreachable(server, error);
}

function unreachable(server: string, error: unknown): ThinktankError {
  const message = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error);
  return new ThinktankError("OAUTH_SERVER_UNREACHABLE", `MCP server '${server}': its sign-in could not be completed: ${message.replace(/\s+/g, " ").slice(0, 300)}`, { details: { server } });
}
