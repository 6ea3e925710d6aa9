import type { HostConfinement } from "@thinktank/core";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { OAuthTokenStore } from "../oauth/oauth-token-store.js";
import type { McpTransportKind } from "../servers/server-entry.js";
import type { StdioSandbox } from "../servers/stdio-sandbox.js";
import type { InputRequiredHandler } from "./modern-session.js";

/** The subset of a pino logger the manager writes to. */
export interface ManagerLogger {
  debug(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

/** The `mcp` section of config.yaml (Config["mcp"]). */
export interface McpSettings {
  /** Time allowed to start a server and finish initialize. @default 10000 */
  readonly connect_timeout_ms: number;
  /** Time allowed for one tool call. @default 60000 */
  readonly call_timeout_ms: number;
  /** Retries after a transient failure (so retries + 1 attempts in all). @default 3 */
  readonly retries: number;
  /** Backoff before retry n (from 1) is retry_base_delay_ms × 2^(n-1). @default 200 */
  readonly retry_base_delay_ms: number;
  /** Folder of cached tool lists, one `<server>.json` each in the catalog format. */
  readonly catalog_dir: string;
  /** Background connects (discoverInBackground) running at once. @default 8 */
  readonly discovery_concurrency?: number;
  /** After a failed connect, background discovery waits this long before trying again, doubling per failure. @default 5000 */
  readonly discovery_retry_base_ms?: number;
  /** The longest wait between background attempts. @default 300000 */
  readonly discovery_retry_max_ms?: number;
  /** How long firstConnectsSettled() waits for a newly discovered server's first connect, counted from when it was queued; 0 never waits. @default 3000 */
  readonly first_connect_grace_ms?: number;
  /** OAuth of remote servers (config.mcp.oauth). */
  readonly oauth?: {
    /** Refresh an access token this long before it expires. @default 60 */
    readonly refresh_before_seconds?: number;
    /** The client name sent with dynamic registration (client credentials). @default "Thinktank" */
    readonly client_name?: string;
  };
}

export interface McpManagerOptions {
  readonly mcp: McpSettings;
  /** Variables `${VAR}` placeholders read at connect time, and the source of a stdio child's PATH and HOME (pass config.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** @default a logger that drops everything */
  readonly logger?: ManagerLogger;
  /** Waits between retries; tests pass a faster or recording one. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The clock for fetchedAt. @default Date.now */
  readonly now?: () => number;
  /** How the manager introduces itself in initialize. @default { name: "thinktank", version: "0.1.0" } */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Write tool lists to catalog_dir. @default true */
  readonly writeCatalog?: boolean;
  /**
   * OAuth tokens of remote servers (createOAuthTokenStore(config)): stored sign-ins are used and
   * refreshed, client-credentials tokens fetched. Without it a server that asks for sign-in is
   * simply `needs_auth`. @default none
   */
  readonly oauthStore?: OAuthTokenStore;
  /**
   * How stdio servers are confined on the host (share the service's: hostConfinementFor(config)).
   * @default a HostConfinement that hides nothing, its helpers found on env.PATH
   */
  readonly hostConfinement?: HostConfinement;
  /**
   * Runs stdio servers marked `sandbox: true` in the sandbox (`createStdioServerSandbox` of
   * @thinktank/sandbox). Without it such a server is unavailable with the reason; with it, where the
   * sandbox runs no server (the deno backend), unavailable with the sandbox's reason. Never on the
   * host instead. @default none
   */
  readonly stdioSandbox?: StdioSandbox;
  /** A user's own sessions (and own servers' sessions) unused this long are closed; their next use opens them again. @default 1,800,000 ms (30 minutes) */
  readonly userIdleMs?: number;
}

/**
 * - `idle`: configured, no live session (not used yet, or closed); the next use connects.
 * - `connecting`: a connect is under way.
 * - `connected`: a live session.
 * - `unavailable`: the last attempt failed, or the config cannot be used; `reason` says why.
 * - `needs_auth`: the server asks for sign-in (HTTP 401, or 403 insufficient_scope); `reason` says
 *   why the stored sign-in (if any) did not do. Its tools are not offered, and it is tried again
 *   only after a new sign-in, never in a retry loop.
 */
export type ServerState = "idle" | "connecting" | "connected" | "unavailable" | "needs_auth";

export interface ServerStatus {
  readonly name: string;
  readonly transport: McpTransportKind | undefined;
  readonly description?: string;
  readonly state: ServerState;
  readonly reason?: string;
  /** Tools of the live session, else of a cached list that matches the current config. */
  readonly toolCount?: number;
  /** Where toolCount came from. */
  readonly toolsFrom?: "live" | "cache";
  /** The stdio child's pid while it runs. */
  readonly pid?: number;
  /** Connects that failed in a row (reset by a successful connect). */
  readonly failedConnects?: number;
  /** After a failed connect: when background discovery may try again (epoch ms, the manager's clock). */
  readonly retryAt?: number;
  /** While unavailable: the last connect ran out of mcp.connect_timeout_ms (the server never answered) rather than failing outright. */
  readonly timedOut?: true;
  /** The MCP protocol version the server agreed to in its last successful connect ("2025-11-25" by initialize, "2026-07-28" by server/discover). */
  readonly protocolVersion?: string;
  /** While unavailable because the server speaks neither era: `PROTOCOL_UNSUPPORTED`, with the versions tried (and those it offers, when it said). */
  readonly code?: "PROTOCOL_UNSUPPORTED";
  readonly versionsTried?: readonly string[];
  readonly versionsOffered?: readonly string[];
  /** When its last error happened (a failed connect, a lost session, a need for sign-in; epoch ms, the manager's clock), and what it was; kept after it recovers. */
  readonly lastErrorAt?: number;
  readonly lastError?: string;
  /** Its sessions carry each user's own credentials (ManagedServer.perUser): every user has a state of their own. */
  readonly perUser?: true;
}

/** Every server's status as the manager holds it now (McpManager.statusReport): the shared sessions, and each user's own. */
export interface ManagerStatusReport {
  /** The operator's view: every shared server (configured and plugin ones). */
  readonly shared: readonly ServerStatus[];
  /** Per user with sessions of their own now: their sessions of per-user servers and their own `~` servers (nothing else: the shared entries apply). */
  readonly users: Readonly<Record<string, readonly ServerStatus[]>>;
}

/** Per-call options for callTool / readResource. */
export interface CallOptions {
  /** @default mcp.call_timeout_ms */
  readonly timeoutMs?: number;
  /** Cancels the call (the server is sent notifications/cancelled); an aborted call is not retried. */
  readonly signal?: AbortSignal;
  /** Who calls (a caller's id): a server that signs in per user is called with their tokens, on their own session. @default the operator */
  readonly user?: string;
  /**
   * Answers a 2026-07-28 tool's `input_required` rounds (an elicitation: a question for a person).
   * What it throws ends the call as it is (the agent's LangGraph interrupt pauses the run).
   * @default none: such a call fails with MCP_INPUT_REQUIRED
   */
  readonly onInputRequired?: InputRequiredHandler;
}

/** Emitted when a server's tool list differs from the one known before (live or cached), or the server goes away. */
export interface ToolsChangedEvent {
  readonly server: string;
  readonly tools: readonly CatalogTool[];
  readonly cause: "connected" | "list_changed" | "removed";
}

/** What sync() did. */
export interface SyncReport {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly unchanged: readonly string[];
}

/** How McpManager.connectAll connects. */
export interface ConnectAllOptions {
  /** @default 4 */
  readonly concurrency?: number;
  /** @default every managed server */
  readonly servers?: readonly string[];
  /** One attempt per server (no retry loop), for a quick look at where each stands. @default false */
  readonly once?: boolean;
  /** Stop waiting after this long; servers still connecting are answered as `connecting`. @default no limit */
  readonly deadlineMs?: number;
  /** Whose sessions (McpManager's `user`). @default the operator */
  readonly user?: string;
  readonly onProgress?: (progress: ConnectProgress) => void;
}

/** Progress of connectAll, one event per server as it settles. */
export interface ConnectProgress {
  readonly server: string;
  readonly status: ServerStatus;
  readonly done: number;
  readonly total: number;
}
