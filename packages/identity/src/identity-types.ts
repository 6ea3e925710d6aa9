import type { AuthMethod, Caller, Role } from "@thinktank/core";

/** A user as the directory lists it; keys by id and creation (never their secrets). */
export interface UserRecord {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly created_at: string;
  readonly keys: readonly { readonly id: string; readonly created_at: string; readonly last4?: string }[];
}

/** Users and their keys (administrators manage them; `remove` and `removeKey` take effect at once here, within a second elsewhere). */
export interface UserDirectory {
  /** A new user with a first key; `apiKey` is shown only here. */
  create(input: { name: string; role: Role }): Promise<{ user: UserRecord; apiKey: string }>;
  list(): Promise<UserRecord[]>;
  get(id: string): Promise<UserRecord | undefined>;
  /** Deletes the user and their keys; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Another key for the user (the others keep working); undefined when the user does not exist. */
  addKey(userId: string): Promise<{ keyId: string; apiKey: string } | undefined>;
  removeKey(userId: string, keyId: string): Promise<boolean>;
}

export type AuditOutcome = "ok" | "denied" | "failed";

export interface AuditRecordInput {
  readonly actor: Caller | undefined;
  /** What was done, e.g. `user.create`, `skill.enable`, `auth.failed`. */
  readonly action: string;
  /** What it was done to (an id, a name). */
  readonly target?: string;
  readonly outcome: AuditOutcome;
  /** More about it; values that look like secrets are masked before writing. */
  readonly detail?: Record<string, unknown>;
  /** Where the request came from (the client's address). */
  readonly source?: string;
}

export interface AuditEntry {
  readonly id: string;
  readonly at: string;
  /** Undefined for an unauthenticated request. */
  readonly actor?: { readonly id: string; readonly name: string; readonly role: Role; readonly auth?: AuthMethod };
  readonly action: string;
  readonly target?: string;
  readonly outcome: AuditOutcome;
  readonly detail?: Record<string, unknown>;
  readonly source?: string;
}

export interface AuditQuery {
  /** @default 50 (at most 500) */
  readonly limit?: number;
  /** A cursor: the `next` of the page before. */
  readonly before?: string;
  /** Only this actor's id. */
  readonly actor?: string;
  readonly action?: string;
  readonly target?: string;
}

/** Who changed what: append-only, newest first. `record` never throws (a failure is logged). */
export interface AuditLog {
  record(entry: AuditRecordInput): Promise<void>;
  list(query: AuditQuery): Promise<{ entries: AuditEntry[]; next?: string }>;
}

/** The headers credentials come in (Fastify's request.headers fits). */
export interface CredentialHeaders {
  readonly "x-api-key"?: string | string[] | undefined;
  readonly authorization?: string | undefined;
  /** The console's session cookie (`thinktank_session`) is a credential when no key or token is sent. */
  readonly cookie?: string | undefined;
  /** The session's CSRF token, required with the cookie on every method but GET, HEAD and OPTIONS. */
  readonly "x-csrf-token"?: string | string[] | undefined;
}

/** What `authenticate` knows of the request besides its headers. */
export interface AuthContext {
  /** The service runs without THINKTANK_API_KEY (loopback only): no credentials then means localOperator. */
  readonly keyless: boolean;
  /** The request's method: with the session cookie, anything but GET, HEAD and OPTIONS needs the CSRF token. @default treated as unsafe */
  readonly method?: string;
}

/** The console session a cookie credential named. */
export interface SessionCredential {
  readonly method: "api_key" | "oidc";
  readonly csrfToken: string;
  readonly expiresAt: string;
}

export type AuthOutcome =
  | { ok: true; caller: Caller | undefined; session?: SessionCredential }
  | {
      ok: false;
      reason: string;
      /** Set when the answer is not UNAUTHENTICATED: a cookie whose session ended (SESSION_EXPIRED, 401), a cookie without its CSRF token (CSRF_FAILED, 403). */
      code?: "SESSION_EXPIRED" | "CSRF_FAILED";
    };
