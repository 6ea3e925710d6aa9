// Public API of @thinktank/identity: every export is listed here by name (README.md says what each is for).
export { openIdentity } from "./open-identity.js";
export type { Identity, IdentityOptions } from "./open-identity.js";
export type {
  AuditEntry,
  AuditLog,
  AuditOutcome,
  AuditQuery,
  AuditRecordInput,
  AuthContext,
  AuthOutcome,
  CredentialHeaders,
  SessionCredential,
  UserDirectory,
  UserRecord,
} from "./identity-types.js";
export { userKeyPrefix } from "./user-keys.js";
export { ConsoleSessions, csrfHeaderName, csrfTokenMatches, sessionCookieName, sessionIdFromCookie } from "./console-sessions.js";
export type { ConsoleSession, ConsoleSessionsOptions, SessionLookup, SessionMethod } from "./console-sessions.js";
export type { OidcFinish, OidcSignIn, OidcSignInOptions, OidcStart } from "./oidc-sign-in.js";
export { maxTokenBytes } from "./jwt-limits.js";
export type { JwtVerifierOptions } from "./jwt-verifier.js";
