import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Caller, JwtConfig, Logger } from "@thinktank/core";
import type { SqlDatabase } from "@thinktank/runs/sql";
import * as client from "openid-client";
import { consoleSignInsTable } from "./identity-tables.js";
import { callerOf } from "./jwt-verifier.js";

export interface OidcSignInOptions {
  readonly database: SqlDatabase;
  /** auth.jwt: the issuer (discovery) and the claim mapping the bearer JWTs use. */
  readonly jwt: JwtConfig;
  /** console.oidc.client_id. */
  readonly clientId: string;
  /** The value of console.oidc.client_secret_env, if any: a confidential client (client_secret_post); else public (PKCE alone). */
  readonly clientSecret?: string;
  /** @default ["openid", "profile", "email"] */
  readonly scopes: readonly string[];
  readonly clock: () => Date;
  /** How long a sign-in may take from start to callback. @default 600000 (10 minutes) */
  readonly pendingTtlMs?: number;
  readonly logger?: Logger;
}

export type OidcStart = { readonly url: string; readonly browserToken: string };
export type OidcFinish = { readonly ok: true; readonly caller: Caller } | { readonly ok: false; readonly reason: string };

interface PendingRow {
  state_sha256: string;
  browser_sha256: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: string;
}

/**
 * The console's OpenID sign-in (docs/console.md, "Sign-in and sessions"): authorization code with
 * PKCE S256, `state` and `nonce`, through auth.jwt's issuer (openid-client). `start` records the
 * pending sign-in in the identity database (so the callback may reach any gateway replica) under the
 * SHA-256 of its state, bound to the browser by a random token (its hash stored; the route puts
 * the token in a short-lived cookie); `finish` takes it once (a replayed or forged state finds
 * nothing), checks the browser and the age, exchanges the code with the PKCE verifier, and checks
 * the id token (signature, issuer, audience = the client id, expiry, nonce). The caller is mapped
 * from the id token's claims exactly as a bearer JWT's (callerOf).
 */
export class OidcSignIn {
  readonly #options: OidcSignInOptions;
  #configuration: Promise<client.Configuration> | undefined;

  constructor(options: OidcSignInOptions) {
    this.#options = options;
  }

  async start(redirectUri: string): Promise<OidcStart> {
    const configuration = await this.#discover();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    const browserToken = randomBytes(32).toString("base64url");
    const now = this.#options.clock();
    const row: PendingRow = { state_sha256: digest(state), browser_sha256: digest(browserToken), nonce, code_verifier: codeVerifier, redirect_uri: redirectUri, created_at: now.toISOString() };
    const columns = Object.keys(row);
    const { database } = this.#options;
    await database.run(`INSERT INTO ${consoleSignInsTable.name} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, Object.values(row));
    await database.run(`DELETE FROM ${consoleSignInsTable.name} WHERE created_at < ?`, [new Date(now.getTime() - this.#ttl()).toISOString()]);
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.#options.scopes.join(" "),
      response_type: "code",
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    });
    return { url: url.href, browserToken };
  }

  /** The callback's URL (as the provider sent the browser to it) and the browser's token: who signed in, or why not. */
  async finish(callbackUrl: URL, browserToken: string | undefined): Promise<OidcFinish> {
    const state = callbackUrl.searchParams.get("state");
    if (!state) return { ok: false, reason: "the callback has no state" };
    const { database, clock } = this.#options;
    const key = digest(state);
    const rows = await database.all<PendingRow>(`SELECT * FROM ${consoleSignInsTable.name} WHERE state_sha256 = ?`, [key]);
    const pending = rows[0];
    // Taken once: only the request that deletes the row goes on (a replay, even a concurrent one, finds nothing).
    if (!pending || Number(await database.run(`DELETE FROM ${consoleSignInsTable.name} WHERE state_sha256 = ?`, [key])) !== 1) return { ok: false, reason: "unknown or already used state" };
    if (!browserToken || !sameDigest(digest(browserToken), pending.browser_sha256)) return { ok: false, reason: "the sign-in was started in another browser" };
    if (clock().getTime() - Date.parse(pending.created_at) > this.#ttl()) return { ok: false, reason: "the sign-in took too long; start again" };
    const error = callbackUrl.searchParams.get("error");
    if (error) return { ok: false, reason: `the provider answered ${error.slice(0, 100)}` };
    // The redirect_uri the code was issued for: the callback's own URL may differ behind a proxy.
    const current = new URL(pending.redirect_uri);
    current.search = callbackUrl.search;
    try {
      const configuration = await this.#discover();
      const tokens = await client.authorizationCodeGrant(configuration, current, { pkceCodeVerifier: pending.code_verifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
      const claims = tokens.claims();
      if (!claims) return { ok: false, reason: "the provider sent no id token" };
      const caller = callerOf(claims, this.#options.jwt);
      if (!caller) return { ok: false, reason: `the id token has no usable ${this.#options.jwt.user_claim} claim` };
      return { ok: true, caller };
    } catch (cause) {
      const reason = describe(cause);
      this.#options.logger?.info({ reason }, "console OpenID sign-in refused");
      return { ok: false, reason };
    }
  }

  #ttl(): number {
    return this.#options.pendingTtlMs ?? 600_000;
  }

  /** The provider's metadata, discovered once (again after a failure). */
  #discover(): Promise<client.Configuration> {
    const { jwt, clientId, clientSecret } = this.#options;
    this.#configuration ??= client
      .discovery(new URL(jwt.issuer), clientId, clientSecret === undefined ? { token_endpoint_auth_method: "none" } : { client_secret: clientSecret }, clientSecret === undefined ? client.None() : client.ClientSecretPost(clientSecret), {
        // A plain-http issuer is accepted only where auth.jwt already names one (a local provider, tests).
        ...(jwt.issuer.startsWith("http:") ? { execute: [client.allowInsecureRequests] } : {}),
        timeout: 10,
      })
      .catch((error: unknown) => {
        this.#configuration = undefined;
        throw error;
      });
    return this.#configuration;
  }
}

function digest(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A short reason from openid-client's errors (never a token or code). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const withCode = error as Error & { code?: string; error?: string; error_description?: string };
    const detail = withCode.error ? `${withCode.error}${withCode.error_description ? `: ${withCode.error_description}` : ""}` : error.message;
    return detail.slice(0, 300);
  }
  return "the code exchange failed";
}
