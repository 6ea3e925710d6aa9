import type { Column, Table } from "@thinktank/runs/sql";

const text = (name: string, nullable = false): Column => ({ name, type: "text", nullable });

/** Users an administrator made (`usr_<hex>`). */
export const usersTable: Table = {
  name: "thinktank_users",
  columns: [text("id"), text("name"), text("role"), text("created_at")],
  primaryKey: ["id"],
};

/** Their keys: the SHA-256 of the secret (hex), never the secret; `last4` of the key helps a person tell keys apart. */
export const userKeysTable: Table = {
  name: "thinktank_user_keys",
  columns: [text("key_id"), text("user_id"), text("secret_sha256"), text("created_at"), text("last4")],
  primaryKey: ["key_id"],
  indexes: [{ name: "thinktank_user_keys_user", columns: ["user_id"] }],
};

/** One row (`id = 'users'`) whose number every change of users or keys raises: what other processes watch. */
export const generationTable: Table = {
  name: "thinktank_identity_generation",
  columns: [text("id"), { name: "generation", type: "real" }],
  primaryKey: ["id"],
};

/** The audit log: append-only, newest by `id` (time-ordered), pruned by age and count. */
export const auditTable: Table = {
  name: "thinktank_audit",
  columns: [
    text("id"),
    text("at"),
    text("actor_id", true),
    text("actor_name", true),
    text("actor_role", true),
    text("actor_auth", true),
    text("action"),
    text("target", true),
    text("outcome"),
    { name: "detail", type: "json", nullable: true },
    text("source", true),
  ],
  primaryKey: ["id"],
  indexes: [
    { name: "thinktank_audit_at", columns: ["at"] },
    { name: "thinktank_audit_actor", columns: ["actor_id", "id"] },
    { name: "thinktank_audit_action", columns: ["action", "id"] },
  ],
};

/**
 * Console sessions (console-sessions.ts): the SHA-256 of the cookie's id (never the id), the CSRF
 * token, who (the caller as signed in; a user key's id, whose removal ends it), how, and when it ends.
 */
export const consoleSessionsTable: Table = {
  name: "thinktank_console_sessions",
  columns: [
    text("id_sha256"),
    text("csrf_token"),
    text("user_id"),
    text("user_name"),
    text("user_role"),
    text("caller_auth"),
    text("method"),
    text("key_id", true),
    text("created_at"),
    text("expires_at"),
    text("last_seen_at"),
  ],
  primaryKey: ["id_sha256"],
  indexes: [{ name: "thinktank_console_sessions_expires", columns: ["expires_at"] }],
};

/**
 * OpenID sign-ins under way (oidc-sign-in.ts): the SHA-256 of the state (the key: taken once), of
 * the browser's token, the nonce and PKCE verifier, the redirect URI, and when it started.
 */
export const consoleSignInsTable: Table = {
  name: "thinktank_console_sign_ins",
  columns: [text("state_sha256"), text("browser_sha256"), text("nonce"), text("code_verifier"), text("redirect_uri"), text("created_at")],
  primaryKey: ["state_sha256"],
};

export const generationRowId = "users";
/** The Postgres NOTIFY channel a change of users or keys is announced on. */
export const identityChannel = "thinktank_identity";
