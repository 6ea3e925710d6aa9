import type { Caller, Config, Logger } from "@thinktank/core";
import { ThinktankError } from "@thinktank/core";
import { openPostgresConnection, openSqliteConnection, type SqlConnection } from "@thinktank/runs/sql";
import { SqlAuditLog } from "./audit-log.js";
import { Authenticator } from "./authenticator.js";
import { ConsoleSessions } from "./console-sessions.js";
import type { OidcSignIn } from "./oidc-sign-in.js";
import { IdentityStore } from "./identity-store.js";
import type { AuditLog, AuthContext, AuthOutcome, CredentialHeaders, UserDirectory } from "./identity-types.js";
import { IdentityWatch } from "./identity-watch.js";
import type { JwtVerifierOptions } from "./jwt-verifier.js";
import { SqlUserDirectory } from "./user-directory.js";

export interface IdentityOptions {
  readonly logger?: Logger;
  /** Timestamps of users, keys and audit entries, and JWT expiry checks. @default () => new Date() */
  readonly clock?: () => Date;
  /** How often other processes' changes are looked for. @default 250 (SQLite), 1000 (Postgres, besides LISTEN/NOTIFY) */
  readonly pollMs?: number;
  /** JWKS and token-cache timings (tests shorten them); see JwtVerifierOptions for the defaults. */
  /** Open the console's OpenID sign-in (`Identity.oidc`) when configured: the gateway's part; the agent never needs it. @default false */
  readonly consoleSignIn?: boolean;
  readonly jwt?: Pick<JwtVerifierOptions, "jwksCooldownMs" | "jwksMaxAgeMs" | "tokenCacheMs" | "tokenCacheSize" | "fetchTimeoutMs">;
}

/** Who calls, and who may: authentication, the user directory and the audit log of one process. */
export interface Identity {
  /**
   * Who the headers name. `keyless`: the service runs without THINKTANK_API_KEY (loopback only):
   * no credentials then means localOperator. With a key configured, no credentials → { ok: true, caller: undefined }.
   * Wrong, expired or revoked credentials → { ok: false, reason } (always, keyless or not).
   */
  authenticate(headers: CredentialHeaders, context: AuthContext): Promise<AuthOutcome>;
  /**
   * A console sign-in with a key (docs/console.md): a user key, or THINKTANK_API_KEY; never a JWT.
   * `keyId`: the user key's id (removing that key ends the sessions made with it).
   */
  signInWithKey(apiKey: string): Promise<{ ok: true; caller: Caller; keyId?: string } | { ok: false; reason: string }>;
  /** Console sessions (the cookie credential): create at sign-in, remove at sign-out. */
  readonly sessions: ConsoleSessions;
  /** The console's OpenID sign-in, when opened with `consoleSignIn` and auth.jwt and console.oidc.client_id are configured. */
  readonly oidc?: OidcSignIn;
  readonly users: UserDirectory;
  readonly audit: AuditLog;
  /** Where the tables are, for the start-up log (never a password). */
  readonly description: string;
  close(): Promise<void>;
}

/** Opens users, keys and the audit log in the threads database config.agent.threads names (the SQLite file, or Postgres at the URL in config.env[postgres_url_env]). */
export async function openIdentity(config: Config, options: IdentityOptions = {}): Promise<Identity> {
  const connection = await openConnection(config);
  const clock = options.clock ?? (() => new Date());
  let watch: IdentityWatch | undefined;
  try {
    const store = await IdentityStore.open(connection, options.logger);
    watch = await IdentityWatch.start(store, { pollMs: options.pollMs, logger: options.logger });
    const jwtConfig = config.auth.jwt;
    // jose is loaded only when JWTs are configured.
    const jwt = jwtConfig ? new (await import("./jwt-verifier.js")).JwtVerifier({ ...options.jwt, config: jwtConfig, clock, logger: options.logger }) : undefined;
    const sessions = new ConsoleSessions({
      database: connection.database,
      clock,
      absoluteMs: config.console.session_hours * 3_600_000,
      idleMs: config.console.idle_minutes * 60_000,
      logger: options.logger,
    });
    const authenticator = new Authenticator({ store, operatorKey: config.api_key, jwt, sessions });
    const oidc = options.consoleSignIn ? await openOidcSignIn(config, connection, clock, options.logger) : undefined;
    const audit = new SqlAuditLog({
      database: connection.database,
      clock,
      logger: options.logger,
      retentionDays: config.auth.audit.retention_days,
      maxEntries: config.auth.audit.max_entries,
    });
    await audit.prune();
    const running = watch;
    let closed: Promise<void> | undefined;
    return {
      authenticate: (headers, context) => authenticator.authenticate(headers, context),
      signInWithKey: (apiKey) => authenticator.signInWithKey(apiKey),
      sessions,
      ...(oidc ? { oidc } : {}),
      users: new SqlUserDirectory(store, clock),
      audit,
      description: connection.description,
      close: () => {
        closed ??= running.stop().then(() => connection.close());
        return closed;
      },
    };
  } catch (error) {
    await watch?.stop().catch(() => undefined);
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/** OpenID sign-in for the console (openid-client loaded only then), when auth.jwt names the issuer and console.oidc.client_id the client. */
async function openOidcSignIn(config: Config, connection: SqlConnection, clock: () => Date, logger: Logger | undefined): Promise<OidcSignIn | undefined> {
  const jwt = config.auth.jwt;
  const { client_id: clientId, client_secret_env: secretEnv, scopes } = config.console.oidc;
  if (!jwt || !clientId) return undefined;
  const clientSecret = secretEnv === undefined ? undefined : config.env[secretEnv];
  if (secretEnv !== undefined && !clientSecret) throw new ThinktankError("CONFIG_INVALID", `console.oidc.client_secret_env names ${secretEnv}, which is not set`);
  const { OidcSignIn: SignIn } = await import("./oidc-sign-in.js");
  return new SignIn({ database: connection.database, jwt, clientId, ...(clientSecret ? { clientSecret } : {}), scopes, clock, ...(logger ? { logger } : {}) });
}

async function openConnection(config: Config): Promise<SqlConnection> {
  const threads = config.agent.threads;
  if (threads.backend === "sqlite") return openSqliteConnection(threads.sqlite_path);
  const url = config.env[threads.postgres_url_env];
  if (!url) throw new ThinktankError("CONFIG_INVALID", `agent.threads.backend is postgres but ${threads.postgres_url_env} is not set (users and keys live in the threads database)`);
  return openPostgresConnection(url);
}
