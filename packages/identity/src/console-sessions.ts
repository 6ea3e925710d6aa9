import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { AuthMethod, Caller, Logger, Role } from "@thinktank/core";
import type { SqlDatabase } from "@thinktank/runs/sql";
import { consoleSessionsTable } from "./identity-tables.js";

/** The console's session cookie (docs/console.md, "Sign-in and sessions"). */
export const sessionCookieName = "thinktank_session";
/** The header a mutation with the session cookie carries the session's CSRF token in. */
export const csrfHeaderName = "x-csrf-token";

/** How a console session was made. `loopback` (the key-less local administrator) never has a row. */
export type SessionMethod = "loopback" | "api_key" | "oidc";

export interface ConsoleSessionsOptions {
  readonly database: SqlDatabase;
  readonly clock: () => Date;
  /** A session ends this long after sign-in, however used (config console.session_hours). @default 12 h */
  readonly absoluteMs: number;
  /** A session unused this long ends (config console.idle_minutes). @default 120 min */
  readonly idleMs: number;
  readonly logger?: Logger;
}

/** A session as the database keeps it: who, how, until when (never the id itself: its SHA-256 is the key). */
export interface ConsoleSession {
  readonly caller: Caller;
  readonly method: Exclude<SessionMethod, "loopback">;
  /** The user key signed in with (its removal ends the session). */
  readonly keyId?: string;
  readonly csrfToken: string;
  readonly createdAt: string;
  /** Absolute end. */
  readonly expiresAt: string;
  readonly lastSeenAt: string;
}

export type SessionLookup = { readonly found: true; readonly session: ConsoleSession } | { readonly found: false; readonly reason: "no such session" | "session expired" | "session idle too long" };

interface SessionRow {
  id_sha256: string;
  csrf_token: string;
  user_id: string;
  user_name: string;
  user_role: Role;
  caller_auth: AuthMethod;
  method: "api_key" | "oidc";
  key_id: string | null;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
}

/** A session id is 32 random bytes, base64url (43 characters); anything else never reaches the database. */
const sessionIdShape = /^[A-Za-z0-9_-]{43}$/;
/** last_seen_at is written at most this often per session (not on every request). */
const touchEveryMs = 60_000;
/** Expired rows are deleted at most this often (by whichever process signs someone in). */
const pruneEveryMs = 10 * 60_000;

/**
 * Console sessions in the identity database (`thinktank_console_sessions`), so every gateway and
 * agent replica sees them: a random id goes to the browser in an httpOnly cookie, only its SHA-256
 * is stored, with the caller, how they signed in, a CSRF token, and the absolute and idle expiry.
 * One query per request that carries the cookie (keys and tokens are no slower than before).
 */
export class ConsoleSessions {
  readonly #options: ConsoleSessionsOptions;
  #lastPrune = 0;

  constructor(options: ConsoleSessionsOptions) {
    this.#options = options;
  }

  /** A new session for `caller`: the id for the cookie (shown only here) and the session. */
  async create(input: { caller: Caller; method: "api_key" | "oidc"; keyId?: string }): Promise<{ id: string; session: ConsoleSession }> {
    const now = this.#options.clock();
    const id = randomBytes(32).toString("base64url");
    const row: SessionRow = {
      id_sha256: idDigest(id),
      csrf_token: randomBytes(32).toString("base64url"),
      user_id: input.caller.id,
      user_name: input.caller.name,
      user_role: input.caller.role,
      caller_auth: input.caller.auth,
      method: input.method,
      key_id: input.keyId ?? null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.#options.absoluteMs).toISOString(),
      last_seen_at: now.toISOString(),
    };
    const columns = Object.keys(row);
    await this.#options.database.run(`INSERT INTO ${consoleSessionsTable.name} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, Object.values(row));
    await this.#pruneNow(now);
    return { id, session: sessionOf(row) };
  }

  /**
   * The session a cookie's id names, when it is neither past its absolute end nor idle too long
   * (then its row is deleted); its last use is recorded (at most once a minute).
   */
  async lookup(id: string): Promise<SessionLookup> {
    if (!sessionIdShape.test(id)) return { found: false, reason: "no such session" };
    const { database, clock, idleMs } = this.#options;
    const digest = idDigest(id);
    const rows = await database.all<SessionRow>(`SELECT * FROM ${consoleSessionsTable.name} WHERE id_sha256 = ?`, [digest]);
    const row = rows[0];
    if (!row) return { found: false, reason: "no such session" };
    const now = clock().getTime();
    const expired = now >= Date.parse(row.expires_at) ? "session expired" : now - Date.parse(row.last_seen_at) >= idleMs ? "session idle too long" : undefined;
    if (expired) {
      await database.run(`DELETE FROM ${consoleSessionsTable.name} WHERE id_sha256 = ?`, [digest]);
      return { found: false, reason: expired };
    }
    if (now - Date.parse(row.last_seen_at) >= Math.min(touchEveryMs, idleMs / 10)) {
      row.last_seen_at = new Date(now).toISOString();
      await database.run(`UPDATE ${consoleSessionsTable.name} SET last_seen_at = ? WHERE id_sha256 = ?`, [row.last_seen_at, digest]);
    }
    return { found: true, session: sessionOf(row) };
  }

  /** Ends the session the id names (sign-out); false when there was none. */
  async remove(id: string): Promise<boolean> {
    if (!sessionIdShape.test(id)) return false;
    const changed = await this.#options.database.run(`DELETE FROM ${consoleSessionsTable.name} WHERE id_sha256 = ?`, [idDigest(id)]);
    return Number(changed) > 0;
  }

  /** Deletes sessions past their absolute end or idle too long. */
  async prune(): Promise<void> {
    await this.#pruneNow(this.#options.clock(), true);
  }

  async #pruneNow(now: Date, always = false): Promise<void> {
    if (!always && now.getTime() - this.#lastPrune < pruneEveryMs) return;
    this.#lastPrune = now.getTime();
    try {
      const idleCutoff = new Date(now.getTime() - this.#options.idleMs).toISOString();
      await this.#options.database.run(`DELETE FROM ${consoleSessionsTable.name} WHERE expires_at <= ? OR last_seen_at <= ?`, [now.toISOString(), idleCutoff]);
    } catch (error) {
      this.#options.logger?.warn({ err: error }, "console sessions: cannot delete expired sessions");
    }
  }
}

/** True when the presented CSRF token is the session's (constant time: both are hashed to 32 bytes first). */
export function csrfTokenMatches(presented: string | readonly string[] | undefined, expected: string): boolean {
  if (typeof presented !== "string" || presented === "") return false;
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/** The session id in a Cookie header, if any (the first `thinktank_session`). */
export function sessionIdFromCookie(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === sessionCookieName) return part.slice(index + 1).trim();
  }
  return undefined;
}

function idDigest(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("hex");
}

function sessionOf(row: SessionRow): ConsoleSession {
  return {
    caller: Object.freeze({ id: row.user_id, name: row.user_name, role: row.user_role, auth: row.caller_auth }),
    method: row.method,
    ...(row.key_id ? { keyId: row.key_id } : {}),
    csrfToken: row.csrf_token,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastSeenAt: row.last_seen_at,
  };
}
