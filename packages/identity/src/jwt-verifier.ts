import { createHash } from "node:crypto";
import type { Caller, JwtConfig, Logger } from "@thinktank/core";
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { maxTokenBytes } from "./jwt-limits.js";
import { fetchDiscoveredJwksUrl } from "./openid-discovery.js";
import type { AuthOutcome } from "./identity-types.js";

export interface JwtVerifierOptions {
  readonly config: JwtConfig;
  readonly clock: () => Date;
  readonly logger?: Logger;
  /** Least time between two JWKS fetches: a token with an unknown `kid` refetches once this has passed since the last fetch. @default 30000 */
  readonly jwksCooldownMs?: number;
  /** The JWKS is fetched again when older than this (so keys the issuer stops publishing stop verifying). @default 600000 */
  readonly jwksMaxAgeMs?: number;
  /** A verified token's caller is kept this long at most, never past the token's `exp`. @default 300000 */
  readonly tokenCacheMs?: number;
  /** Verified tokens kept (least recently used go first). @default 10000 */
  readonly tokenCacheSize?: number;
  /** Discovery and JWKS requests give up after this. @default 5000 */
  readonly fetchTimeoutMs?: number;
}

/** After discovery failed, requests are refused at once for this long before it is tried again. */
const discoveryRetryMs = 10_000;

interface CachedCaller {
  readonly caller: Caller;
  readonly until: number;
}

/**
 * Verifies bearer JWTs from the frontend's identity provider with jose: signature by a key of the
 * issuer's JWKS (`jwks_url`, else the `jwks_uri` of its OpenID discovery, fetched once; jose
 * refetches on an unknown `kid`, at most once per cooldown), `iss`, `aud`, an `exp` (required),
 * `nbf`, the algorithm allowlist (asymmetric only: config refuses `none` and HS*), a clock skew.
 * A verified token's caller is cached by the token's SHA-256, so a warm token costs a hash and a
 * map lookup.
 */
export class JwtVerifier {
  readonly #options: JwtVerifierOptions;
  readonly #cache = new Map<string, CachedCaller>();
  #keys: Promise<JWTVerifyGetKey> | undefined;
  #keysFailedAt = 0;

  constructor(options: JwtVerifierOptions) {
    this.#options = options;
  }

  async verify(token: string): Promise<AuthOutcome> {
    if (token.length > maxTokenBytes) return { ok: false, reason: "token too large" };
    const now = this.#options.clock().getTime();
    const digest = createHash("sha256").update(token).digest("base64");
    const cached = this.#cache.get(digest);
    if (cached) {
      this.#cache.delete(digest);
      if (cached.until > now) {
        this.#cache.set(digest, cached);
        return { ok: true, caller: cached.caller };
      }
    }
    const keys = await this.#jwks(now);
    if (!keys) return { ok: false, reason: "the identity provider's keys are unavailable" };
    const { config } = this.#options;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: typeof config.audience === "string" ? config.audience : [...config.audience],
        algorithms: [...config.algorithms],
        clockTolerance: config.clock_skew_seconds,
        currentDate: new Date(now),
        requiredClaims: ["exp"],
      }));
    } catch (error) {
      return { ok: false, reason: this.#reasonFor(error) };
    }
    const caller = callerOf(payload, config);
    if (!caller) return { ok: false, reason: `token has no usable ${config.user_claim} claim` };
    const until = Math.min((payload.exp as number) * 1000, now + (this.#options.tokenCacheMs ?? 300_000));
    if (this.#cache.size >= (this.#options.tokenCacheSize ?? 10_000)) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(digest, { caller, until });
    return { ok: true, caller };
  }

  /** The key set, made once (after discovery when no jwks_url); undefined while discovery keeps failing. */
  async #jwks(now: number): Promise<JWTVerifyGetKey | undefined> {
    if (!this.#keys) {
      if (now - this.#keysFailedAt < discoveryRetryMs) return undefined;
      this.#keys = this.#makeKeys();
    }
    try {
      return await this.#keys;
    } catch (error) {
      this.#keys = undefined;
      this.#keysFailedAt = now;
      this.#options.logger?.warn({ err: error, issuer: this.#options.config.issuer }, "auth.jwt: OpenID discovery failed; JWTs are refused until it works");
      return undefined;
    }
  }

  async #makeKeys(): Promise<JWTVerifyGetKey> {
    const { config, fetchTimeoutMs = 5000 } = this.#options;
    const url = config.jwks_url ?? (await fetchDiscoveredJwksUrl(config.issuer, fetchTimeoutMs));
    return createRemoteJWKSet(new URL(url), {
      timeoutDuration: fetchTimeoutMs,
      cooldownDuration: this.#options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: this.#options.jwksMaxAgeMs ?? 600_000,
    });
  }

  #reasonFor(error: unknown): string {
    if (error instanceof errors.JWTExpired) return "token expired";
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.claim === "iss") return "token issuer not accepted";
      if (error.claim === "aud") return "token audience not accepted";
      if (error.claim === "nbf") return "token not valid yet";
      return `token claim ${error.claim} not valid`;
    }
    if (error instanceof errors.JOSEAlgNotAllowed) return "token algorithm not accepted";
    if (error instanceof errors.JWKSNoMatchingKey) return "token signed by an unknown key";
    if (error instanceof errors.JWSSignatureVerificationFailed) return "token signature not valid";
    if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError)) {
      this.#options.logger?.warn({ err: error }, "auth.jwt: cannot fetch the identity provider's keys");
      return "the identity provider's keys are unavailable";
    }
    return "token not valid";
  }
}

/**
 * The caller a verified token names: `jwt:<user claim>`, the name claim (else the id), admin when a
 * role matches admin_roles. The one mapping: bearer JWTs here, the console's OpenID sign-in's id tokens (oidc-sign-in.ts).
 */
export function callerOf(payload: JWTPayload, config: JwtConfig): Caller | undefined {
  const user = claim(payload, config.user_claim);
  const value = typeof user === "number" ? String(user) : user;
  if (typeof value !== "string" || value === "" || value.length > 256 || /[\u0000-\u001f\u007f]/.test(value)) return undefined;
  const id = `jwt:${value}`;
  const named = claim(payload, config.name_claim);
  const name = typeof named === "string" && named.trim() !== "" && named.length <= 200 && !/[\u0000-\u001f\u007f]/.test(named) ? named : id;
  const roles = claim(payload, config.role_claim);
  const list = typeof roles === "string" ? [roles] : Array.isArray(roles) ? roles.filter((role): role is string => typeof role === "string") : [];
  const admin = list.some((role) => config.admin_roles.includes(role));
  return Object.freeze({ id, name, role: admin ? "admin" : "user", auth: "jwt" });
}

/** A claim by name, or by a dotted path into nested objects when no claim has that whole name (`realm_access.roles`). */
function claim(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
