import { apiKeyMatches, localOperator, operatorId, presentedApiKey, type Caller } from "@thinktank/core";
import type { IdentityStore } from "./identity-store.js";
import { csrfTokenMatches, sessionIdFromCookie, type ConsoleSession, type ConsoleSessions } from "./console-sessions.js";
import type { AuthContext, AuthOutcome, CredentialHeaders } from "./identity-types.js";
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
  /** Console sessions: the cookie is a credential when no key or token is sent. */
  readonly sessions?: ConsoleSessions;
}

/** Methods that change nothing: the session cookie needs no CSRF token on them. */
const safeMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

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

  async authenticate(headers: CredentialHeaders, context: AuthContext): Promise<AuthOutcome> {
    const direct = headers["x-api-key"];
    if (Array.isArray(direct) && direct.length > 1) return { ok: false, reason: "more than one X-API-Key header" };
    const presented = presentedApiKey({ "x-api-key": Array.isArray(direct) ? direct[0] : direct, authorization: headers.authorization });
    if (presented === undefined) {
      // A key or token wins over the cookie (it is not ambient, so it needs no CSRF token).
      const sessionId = this.#options.sessions ? sessionIdFromCookie(headers.cookie) : undefined;
      if (sessionId !== undefined) return this.#session(sessionId, headers, context);
      return { ok: true, caller: context.keyless ? localOperator : undefined };
    }
    if (presented.startsWith(userKeyPrefix)) return await this.#userKey(presented);
    const { jwt, operatorKey } = this.#options;
    // The operator's key first (constant time): a THINKTANK_API_KEY that happens to have a JWT's shape still works.
    if (operatorKey !== undefined && apiKeyMatches(presented, operatorKey)) return { ok: true, caller: operatorByKey };
    if (jwt && jwtShape.test(presented)) return jwt.verify(presented);
    return { ok: false, reason: "unknown key" };
  }

  /**
   * What a console sign-in with a key makes: a user key (with its id, whose removal ends the
   * session) or THINKTANK_API_KEY. A JWT is refused here (OpenID sign-in is for tokens).
   */
  async signInWithKey(apiKey: string): Promise<{ ok: true; caller: Caller; keyId?: string } | { ok: false; reason: string }> {
    if (apiKey.startsWith(userKeyPrefix)) {
      const parsed = parseUserKey(apiKey);
      const outcome = await this.#userKey(apiKey);
      return outcome.ok && outcome.caller && parsed ? { ok: true, caller: outcome.caller, keyId: parsed.keyId } : { ok: false, reason: outcome.ok ? "unknown or revoked key" : outcome.reason };
    }
    const { operatorKey } = this.#options;
    if (operatorKey !== undefined && apiKeyMatches(apiKey, operatorKey)) return { ok: true, caller: operatorByKey };
    return { ok: false, reason: "unknown key" };
  }

  /** The cookie's session, still valid for who it names, with the CSRF token on unsafe methods. */
  async #session(sessionId: string, headers: CredentialHeaders, context: AuthContext): Promise<AuthOutcome> {
    const sessions = this.#options.sessions as ConsoleSessions;
    const lookup = await sessions.lookup(sessionId);
    if (!lookup.found) return { ok: false, reason: lookup.reason, code: "SESSION_EXPIRED" };
    let caller = this.#sessionCaller(lookup.session);
    // A key another process made a moment ago: look at the stored generation once before giving up (as #userKey does).
    if (!caller && lookup.session.keyId !== undefined && (await this.#options.store.refreshIfChanged().catch(() => false))) caller = this.#sessionCaller(lookup.session);
    if (!caller) {
      await sessions.remove(sessionId);
      return { ok: false, reason: "the key this session was signed in with is gone", code: "SESSION_EXPIRED" };
    }
    const method = (context.method ?? "POST").toUpperCase();
    if (!safeMethods.has(method) && !csrfTokenMatches(headers["x-csrf-token"], lookup.session.csrfToken)) {
      return { ok: false, reason: "the x-csrf-token header is missing or is not this session's", code: "CSRF_FAILED" };
    }
    const { method: signedInWith, csrfToken, expiresAt } = lookup.session;
    return { ok: true, caller, session: { method: signedInWith, csrfToken, expiresAt } };
  }

  /** Who a session acts as now: a user key's user as the directory has them (gone with the key), the operator while THINKTANK_API_KEY is set, an OpenID user as signed in. */
  #sessionCaller(session: ConsoleSession): Caller | undefined {
    if (session.method === "oidc") return session.caller;
    if (session.keyId !== undefined) {
      const snapshot = this.#options.store.snapshot;
      const key = snapshot.keys.get(session.keyId);
      return key && key.userId === session.caller.id ? snapshot.callers.get(key.userId) : undefined;
    }
    return session.caller.id === operatorId && this.#options.operatorKey !== undefined ? operatorByKey : undefined;
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
