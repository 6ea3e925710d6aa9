import { apiKeyMatches, localOperator, operatorId, presentedApiKey, type Caller } from "@thinktank/core";
import type { IdentityStore } from "./identity-store.js";
import type { AuthOutcome, CredentialHeaders } from "./identity-types.js";
import type { JwtVerifier } from "./jwt-verifier.js";
import { digestsMatch, parseUserKey, secretDigest, userKeyPrefix } from "./user-keys.js";

/** The holder of THINKTANK_API_KEY. */
const operatorByKey: Caller = Object.freeze({ id: operatorId, name: "admin", role: "admin", auth: "key" });

/** Compared against when a key id is unknown, so an unknown id costs what a known one does. */
const absentDigest = Buffer.alloc(32);

const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface AuthenticatorOptions {
  readonly store: IdentityStore;
  /** THINKTANK_API_KEY (config.api_key), if any. */
  readonly operatorKey: string | undefined;
  /** auth.jwt, when configured. */
  readonly jwt: JwtVerifier | undefined;
}

/**
 * Who the headers name. A presented value is tried as: a user key (`tt_u_` prefix), else
 * THINKTANK_API_KEY, else a JWT (by its shape, when auth.jwt is configured). No query per request: keys come
 * from the store's in-memory snapshot, JWTs from the verifier's cache after their first check.
 */
export class Authenticator {
  readonly #options: AuthenticatorOptions;

  constructor(options: AuthenticatorOptions) {
    this.#options = options;
  }

  async authenticate(headers: CredentialHeaders, context: { keyless: boolean }): Promise<AuthOutcome> {
    const direct = headers["x-api-key"];
    if (Array.isArray(direct) && direct.length > 1) return { ok: false, reason: "more than one X-API-Key header" };
    const presented = presentedApiKey({ "x-api-key": Array.isArray(direct) ? direct[0] : direct, authorization: headers.authorization });
    if (presented === undefined) return { ok: true, caller: context.keyless ? localOperator : undefined };
    if (presented.startsWith(userKeyPrefix)) return await this.#userKey(presented);
    const { jwt, operatorKey } = this.#options;
    // The operator's key first (constant time): a THINKTANK_API_KEY that happens to have a JWT's shape still works.
    if (operatorKey !== undefined && apiKeyMatches(presented, operatorKey)) return { ok: true, caller: operatorByKey };
    if (jwt && jwtShape.test(presented)) return jwt.verify(presented);
    return { ok: false, reason: "unknown key" };
  }

  async #userKey(presented: string): Promise<AuthOutcome> {
    const parsed = parseUserKey(presented);
    if (!parsed) return { ok: false, reason: "malformed user key" };
    const { store } = this.#options;
    let caller = this.#callerOf(parsed.keyId, parsed.secret);
    // A key another process made a moment ago (the gateway, another replica) is in this snapshot
    // only after the watcher's next look (within a second): a key that does not match looks at the
    // stored generation once now (one row; concurrent looks share it) and, when it changed, looks again,
    // instead of refusing a new user.
    if (!caller && (await store.refreshIfChanged().catch(() => false))) caller = this.#callerOf(parsed.keyId, parsed.secret);
    return caller ? { ok: true, caller } : { ok: false, reason: "unknown or revoked key" };
  }

  #callerOf(keyId: string, secret: string): Caller | undefined {
    const snapshot = this.#options.store.snapshot;
    const key = snapshot.keys.get(keyId);
    const matches = digestsMatch(secretDigest(secret), key?.digest ?? absentDigest);
    return key && matches ? snapshot.callers.get(key.userId) : undefined;
  }

}
