import { ThinktankError, isThinktankError, type HostConfinement } from "@thinktank/core";
import type { CallToolResult, ReadResourceRequest, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { OAuthTokenStore } from "../oauth/oauth-token-store.js";
import { resolvedConfigHash } from "../servers/config-hash.js";
import { withoutConfiguredSecrets } from "../servers/configured-secrets.js";
import { resolveServerConfig } from "../servers/resolve-server-config.js";
import type { McpServerEntry, McpTransportKind } from "../servers/server-entry.js";
import type { StdioSandbox } from "../servers/stdio-sandbox.js";
import { transportKindOf } from "../servers/transport-kind.js";
import type { FailureClass } from "./classify-failure.js";
import type { CallOptions, ManagerLogger, McpSettings, ServerState, ServerStatus, ToolsChangedEvent } from "./manager-types.js";
import { InputHandlerEscape } from "./input-handler-escape.js";
import type { EraVerdict } from "./protocol-era.js";
import type { ServerConnection } from "./server-connection.js";
import { ServerToolList } from "./server-tool-list.js";
import { loadSessionModules } from "./session-modules.js";
import { SignInWatch } from "./sign-in-watch.js";
import { tokenSourceFor } from "./token-source-for.js";

/** What every ManagedServer shares with its manager. */
export interface ManagedServerContext {
  readonly settings: McpSettings;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: ManagerLogger;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly writeCatalog: boolean;
  readonly emitToolsChanged: (event: ToolsChangedEvent) => void;
  /** Keeps a background promise (a refresh, a close) so the manager can wait for it. */
  readonly track: (work: Promise<unknown>) => void;
  /** How long background discovery waits after the n-th failed connect in a row (n from 1). */
  readonly retryDelay: (failures: number) => number;
  /** Stored OAuth tokens of remote servers, when the manager was given a store. */
  readonly oauthStore?: OAuthTokenStore;
  /** Confines stdio servers on the host. */
  readonly hostConfinement: HostConfinement;
  /** Runs stdio servers marked `sandbox: true` in the sandbox (McpManagerOptions.stdioSandbox). */
  readonly stdioSandbox?: StdioSandbox;
  /** Why stdio servers cannot run sandboxed here, once the stdio sandbox has said (undefined until then, or when they can). */
  readonly stdioSandboxProblem: () => string | undefined;
  /** Offer the tool list cached on disk before the first connect (false for one user's sessions: their tools are known once they connected). @default true */
  readonly readCache?: boolean;
}

/** A connect that failed, already classified. */
class ConnectFailure extends Error {
  readonly needsAuth: boolean;
  constructor(readonly failure: FailureClass) {
    super(failure.reason);
    this.needsAuth = failure.needsAuth === true;
  }
}

/**
 * One configured server: its state, its live session (at most one, reused by every call), its
 * tool list, and the retry loop. Connects lazily; a session that dies is replaced on next use.
 *
 * States (`status().state`):
 *
 * ```
 *            entry does not resolve (a missing ${VAR}, a bad URL): unavailable for good,
 *            no attempt until the entry changes (a new ManagedServer)
 *
 *   idle ──first use or discovery──▶ connecting ──initialize + tools/list──▶ connected
 *                                     │  │  ▲                                  │
 *                   401 / 403 scope   │  │  │ next use, or discovery once      │ the session closes,
 *                 (server signs in)   │  │  │ retryAt passed (backoff grows    │ the process exits,
 *                                     │  │  │ with failedConnects)             │ a transient call error
 *                                     ▼  ▼  │                                  ▼
 *                            needs_auth  unavailable ◀───────────────────────────┘
 *                                │                 (a call retries up to `retries` times first)
 *                                └── a new sign-in (SignInWatch.changed) ──▶ connecting
 *
 *   connected ──a call answered 401 / 403 scope (a refresh did not help)──▶ needs_auth
 *   any state ──dispose()──▶ idle, disposed: calls fail, the session and a connect under way close
 * ```
 *
 * needs_auth is never retried on a timer: only a new sign-in (the token store's sign-in revision
 * changes) lets it try again, so a server waiting for a user costs nothing. Tools are offered
 * (isReady) only when they are known (live, or the disk cache written for this very entry) and
 * the last connect did not fail.
 */
export class ManagedServer {
  /** Sessions are kept per key: the hash of the resolved config, or the reason it cannot resolve. */
  readonly key: string;
  readonly transport: McpTransportKind | undefined;
  private state: ServerState = "idle";
  private reason: string | undefined;
  /** A config problem: no attempt is made until the entry changes. */
  private readonly configProblem: string | undefined;
  /** A stdio server marked `sandbox: true`: it runs in the sandbox or not at all. */
  private readonly sandboxed: boolean;
  private connection: ServerConnection | undefined;
  private connecting: Promise<ServerConnection> | undefined;
  /** The connection being opened, so dispose() can stop a connect that would otherwise run to its timeout. */
  private opening: ServerConnection | undefined;
  private readonly tools: ServerToolList;
  private disposed = false;
  /** Connects that failed in a row, and when background discovery may try again. */
  private failedConnects = 0;
  private retryAt = 0;
  /** The last failed connect ran out of time (the server never answered), rather than being refused. */
  private timedOut = false;
  /** The protocol version of the last successful connect. */
  private protocolVersion: string | undefined;
  /** What the server speaks, from its last connect (or the cached list's record): its next session starts there. */
  private verdict: EraVerdict | undefined;
  /** The last connect found it speaks neither era (PROTOCOL_UNSUPPORTED). */
  private unsupported: FailureClass["protocolUnsupported"];
  /** The last error (a failed connect, a lost session, a need for sign-in) and when (the manager's clock); kept after a recovery. */
  private lastError: { readonly at: number; readonly reason: string } | undefined;
  /** OAuth: the token source and the needs_auth bookkeeping. */
  private readonly signIn: SignInWatch;
  /**
   * Its sessions carry a user's own credentials: a remote server that signs in with OAuth (no
   * Authorization header of its own, not client_credentials) where the manager has a token store.
   * Such a server gets one ManagedServer per user (UserServers); the others one for everyone.
   */
  readonly perUser: boolean;

  constructor(
    readonly name: string,
    private entry: McpServerEntry,
    private readonly context: ManagedServerContext,
  ) {
    this.transport = transportKindOf(entry);
    const resolution = resolveServerConfig(entry, { env: context.env, sandboxedStdio: context.stdioSandbox !== undefined });
    this.key = resolution.ok ? `config:${resolvedConfigHash(resolution.config)}` : `unavailable:${resolution.reason}`;
    this.sandboxed = resolution.ok && resolution.config.transport === "stdio" && resolution.config.sandbox !== undefined;
    if (!resolution.ok) {
      this.configProblem = resolution.reason;
      this.state = "unavailable";
      this.reason = resolution.reason;
      this.lastError = { at: context.now(), reason: resolution.reason };
    } else {
      // A server that can connect will (discovery, a first request): its code starts loading now, beside the rest of the start-up.
      loadSessionModules().catch(() => undefined);
    }
    this.tools = new ServerToolList({ ...context, server: name, transport: this.transport, entry: () => this.entry });
    const tokens = resolution.ok ? tokenSourceFor(name, resolution.config, context) : undefined;
    this.signIn = new SignInWatch(name, tokens, context.logger, context.track);
    this.perUser = tokens !== undefined && context.oauthStore !== undefined && resolution.ok && resolution.config.transport !== "stdio" && resolution.config.oauth?.grant !== "client_credentials";
  }

  /** The entry as configured now. */
  get currentEntry(): McpServerEntry {
    return this.entry;
  }

  /** Takes a new entry whose transport fields resolve to the same key (a new description, say). */
  updateEntry(entry: McpServerEntry): void {
    this.entry = entry;
  }

  status(): ServerStatus {
    const toolCount = this.tools.known()?.length;
    const pid = this.connection?.alive ? this.connection.pid : undefined;
    // A server that can only run sandboxed, where the sandbox runs none (the deno backend): unavailable for good.
    const blocked = this.configProblem === undefined ? this.problem() : undefined;
    return {
      name: this.name,
      transport: this.transport,
      ...(typeof this.entry.description === "string" ? { description: this.entry.description } : {}),
      state: blocked ? "unavailable" : this.state,
      ...(blocked ? { reason: blocked } : this.reason ? { reason: this.reason } : {}),
      ...(toolCount !== undefined ? { toolCount, toolsFrom: this.tools.live ? ("live" as const) : ("cache" as const) } : {}),
      ...(pid !== undefined ? { pid } : {}),
      ...(this.failedConnects > 0 ? { failedConnects: this.failedConnects, retryAt: this.retryAt } : {}),
      ...(this.state === "unavailable" && this.timedOut ? { timedOut: true } : {}),
      ...(this.protocolVersion ? { protocolVersion: this.protocolVersion } : {}),
      ...(this.unsupported && this.state === "unavailable"
        ? { code: "PROTOCOL_UNSUPPORTED" as const, versionsTried: this.unsupported.versionsTried, ...(this.unsupported.versionsOffered ? { versionsOffered: this.unsupported.versionsOffered } : {}) }
        : {}),
      ...(this.lastError ? { lastErrorAt: this.lastError.at, lastError: this.lastError.reason } : {}),
      ...(this.perUser ? { perUser: true as const } : {}),
    };
  }

  /**
   * Whether background discovery should try to connect now: its tools are unknown or its last
   * connect failed, it is not connected or connecting, its entry can be used, and any backoff
   * after a failure has passed.
   */
  needsDiscovery(now: number): boolean {
    if (this.disposed || this.problem() !== undefined || this.connecting) return false;
    // A 2026-07-28 list past its ttlMs is asked for again (live session or not); until then it is used as it is.
    if (this.state !== "needs_auth" && this.failedConnects === 0 && this.tools.stale(now)) return true;
    if (this.connection?.alive) return false;
    if (this.state === "needs_auth") return this.signIn.changed();
    if (this.knownTools() !== undefined && this.failedConnects === 0) return false;
    return now >= this.retryAt;
  }

  /**
   * Whether its tools can be offered without waiting for anything: they are known (live, or
   * cached for this entry), the entry can be used, and the last connect did not fail. A server
   * that crashed after connecting stays ready: the next call restarts it.
   */
  isReady(): boolean {
    return !this.disposed && this.problem() === undefined && this.failedConnects === 0 && this.state !== "needs_auth" && this.knownTools() !== undefined;
  }

  /** One connect attempt, without the retry loop (background discovery); a failure lands in status() and sets the backoff. */
  async attemptConnect(): Promise<void> {
    if (this.problem() !== undefined || this.disposed || (this.state === "needs_auth" && !this.signIn.changed())) return;
    if (this.connection?.alive && this.tools.stale(this.context.now())) {
      this.tools.refresh(() => this.connection);
      await this.tools.settled();
      return;
    }
    await this.ensureConnected(true).catch(() => undefined);
  }

  /** The live tool list, else the cached one when it matches this entry; never connects. None while it needs sign-in: its tools cannot be used. */
  knownTools(): readonly CatalogTool[] | undefined {
    if (this.state === "needs_auth") return undefined;
    return this.tools.known();
  }

  /** Connects (with retries) unless connected; failures land in status(), never thrown. */
  async connect(): Promise<void> {
    await this.run("connect", async () => undefined).catch(() => undefined);
  }

  async listTools(): Promise<CatalogTool[]> {
    await this.run("tools/list", async () => undefined);
    return [...(this.tools.live ?? [])];
  }

  callTool(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    return this.run(
      `tools/call ${tool}`,
      async (connection) => {
        await this.tools.require(connection, tool);
        return connection.callTool(tool, args, {
          timeoutMs: options.timeoutMs ?? this.context.settings.call_timeout_ms,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onInputRequired ? { onInputRequired: options.onInputRequired } : {}),
        });
      },
      options,
    );
  }

  readResource(params: ReadResourceRequest["params"], options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.run(
      `resources/read`,
      (connection) => connection.readResource(params, { timeoutMs: options.timeoutMs ?? this.context.settings.call_timeout_ms, ...(options.signal ? { signal: options.signal } : {}) }),
      options,
    );
  }

  /** Ends the session for good; `removed` also deletes the cached tool list and says so to listeners. */
  async dispose(removed: boolean): Promise<void> {
    this.disposed = true;
    const connection = this.connection;
    this.connection = undefined;
    this.state = "idle";
    // A connect under way is stopped at once: a server that has not answered yet would not react to stdin closing either.
    await Promise.all([connection?.close(), this.opening?.close({ terminate: true })]);
    await this.tools.close(removed);
  }

  /** Waits for a tool-list refresh under way, if any. */
  async settled(): Promise<void> {
    await this.tools.settled();
  }

  /**
   * Runs `operation` on a live session. Transient failures (the connection closed, the process
   * exited, a refused or timed-out connect) drop the session and try again after a backoff, up to
   * `retries` times; then SERVICE_UNAVAILABLE naming the server. A tool's own error result is an
   * answer, not a failure. A call that outlives its timeout is MCP_CALL_TIMEOUT and is not retried.
   */
  private async run<T>(what: string, operation: (connection: ServerConnection) => Promise<T>, options: CallOptions = {}): Promise<T> {
    const { retries, retry_base_delay_ms: baseDelay } = this.context.settings;
    let last: FailureClass | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        const delay = baseDelay * 2 ** (attempt - 1);
        this.context.logger.info({ server: this.name, attempt, delay_ms: delay, reason: last?.reason }, "mcp retrying after a transient failure");
        await this.context.sleep(delay);
      }
      if (options.signal?.aborted) throw options.signal.reason;
      if (this.disposed) throw this.unavailable("its session was closed (removed from the configuration, or the manager closed)");
      const problem = this.problem();
      if (problem) throw this.unavailable(problem);
      if (this.state === "needs_auth" && !this.signIn.changed()) throw this.needsAuthError();
      let connection: ServerConnection;
      try {
        connection = await this.ensureConnected();
      } catch (error) {
        const failure = error instanceof ConnectFailure ? error.failure : (await loadSessionModules()).classifyFailure(error);
        if (failure.needsAuth) throw this.needsAuthError();
        if (failure.protocolUnsupported) {
          throw new ThinktankError("PROTOCOL_UNSUPPORTED", `MCP server '${this.name}' is unavailable: ${failure.reason}`, { details: { server: this.name, versions_tried: failure.protocolUnsupported.versionsTried } });
        }
        if (!failure.transient) throw this.unavailable(failure.reason);
        last = failure;
        continue;
      }
      try {
        return await operation(connection);
      } catch (error) {
        if (error instanceof InputHandlerEscape) throw error.escaped;
        if (options.signal?.aborted) throw error;
        if (isThinktankError(error)) throw error;
        const { classifyFailure, isRequestTimeout } = await loadSessionModules();
        if (isRequestTimeout(error)) {
          const timeoutMs = options.timeoutMs ?? this.context.settings.call_timeout_ms;
          throw new ThinktankError("MCP_CALL_TIMEOUT", `MCP server '${this.name}' did not answer ${what} within ${timeoutMs} ms`, {
            cause: error,
            details: { server: this.name, timeout_ms: timeoutMs },
          });
        }
        const failure = classifyFailure(error, "session");
        if (this.signIn.isAuthFailure(failure)) {
          this.dropConnection(connection, failure.reason);
          this.enterNeedsAuth();
          throw this.needsAuthError();
        }
        if (!failure.transient) {
          throw new ThinktankError("MCP_PROTOCOL_ERROR", `MCP server '${this.name}' answered ${what} with an error: ${failure.reason}`, {
            cause: error,
            details: { server: this.name },
          });
        }
        last = failure;
        this.dropConnection(connection, failure.reason);
      }
    }
    const attempts = retries + 1;
    const reason = last?.reason ?? "unknown failure";
    this.state = "unavailable";
    this.reason = `${reason} (after ${attempts} attempts; tried again on next use)`;
    this.noteError(this.reason);
    throw new ThinktankError("SERVICE_UNAVAILABLE", `MCP server '${this.name}' is unavailable after ${attempts} attempts: ${reason}`, {
      details: { server: this.name, attempts, reason },
    });
  }

  /** Why no attempt is made: the entry cannot be used, or it can only run sandboxed where the sandbox runs no server. */
  private problem(): string | undefined {
    return this.configProblem ?? (this.sandboxed ? this.context.stdioSandboxProblem() : undefined);
  }

  private needsAuthError(): ThinktankError {
    return new ThinktankError("MCP_NEEDS_AUTH", `MCP server '${this.name}' ${this.reason ?? "needs sign-in"}`, { details: { server: this.name, reason: this.reason } });
  }

  /** The needs_auth state: not retried, no backoff, until a new sign-in (see SignInWatch). */
  private enterNeedsAuth(): void {
    this.state = "needs_auth";
    this.reason = this.signIn.enter();
    this.noteError(this.reason);
    this.failedConnects = 0;
    this.retryAt = 0;
    this.timedOut = false;
  }

  private noteError(reason: string): void {
    this.lastError = { at: this.context.now(), reason };
  }

  private unavailable(reason: string): ThinktankError {
    return new ThinktankError("SERVICE_UNAVAILABLE", `MCP server '${this.name}' is unavailable: ${reason}`, { details: { server: this.name, reason } });
  }

  /** `background`: off the request path (discovery), where a failure is a detail the start-up summary counts. */
  private ensureConnected(background = false): Promise<ServerConnection> {
    if (this.connection?.alive) return Promise.resolve(this.connection);
    this.connecting ??= this.connectOnce(background).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connectOnce(background: boolean): Promise<ServerConnection> {
    const resolution = resolveServerConfig(this.entry, { env: this.context.env, sandboxedStdio: this.context.stdioSandbox !== undefined });
    if (!resolution.ok) throw new ConnectFailure({ transient: false, reason: resolution.reason });
    if (this.sandboxed && this.context.stdioSandbox) {
      const availability = await this.context.stdioSandbox.availability();
      if (!availability.ok) throw new ConnectFailure({ transient: false, reason: availability.reason });
    }
    this.state = "connecting";
    const { ServerConnection, classifyFailure } = await loadSessionModules();
    let listChangedEarly = false;
    const connection: ServerConnection = new ServerConnection({
      server: this.name,
      config: resolution.config,
      logger: this.context.logger,
      clientInfo: this.context.clientInfo,
      hostConfinement: this.context.hostConfinement,
      ...(this.context.stdioSandbox ? { stdioSandbox: this.context.stdioSandbox } : {}),
      onUnexpectedClose: (reason) => this.connectionLost(connection, reason),
      onToolListChanged: () => {
        if (this.connection === connection) this.tools.refresh(() => this.connection);
        else listChangedEarly = true;
      },
      ...(this.signIn.fetch ? { fetch: this.signIn.fetch } : {}),
    });
    const started = this.context.now();
    this.opening = connection;
    try {
      await connection.open(this.context.settings.connect_timeout_ms, this.verdict ?? this.tools.cachedVerdict());
      const tools = await connection.listAllTools(this.context.settings.connect_timeout_ms);
      if (this.disposed) throw new ConnectFailure({ transient: false, reason: "its session was closed (removed from the configuration, or the manager closed)" });
      this.connection = connection;
      this.state = "connected";
      this.reason = undefined;
      this.protocolVersion = connection.protocolVersion;
      this.verdict = connection.verdict;
      this.unsupported = undefined;
      this.failedConnects = 0;
      this.retryAt = 0;
      this.timedOut = false;
      this.signIn.connected();
      this.context.logger.info({ server: this.name, tools: tools.length, pid: connection.pid, protocol: connection.protocolVersion, ms: this.context.now() - started }, "mcp server connected");
      await this.tools.accept(tools, "connected", { ttlMs: connection.toolListTtlMs, verdict: this.verdict });
      if (listChangedEarly) this.tools.refresh(() => this.connection);
      return connection;
    } catch (error) {
      await connection.close();
      let failure = error instanceof ConnectFailure ? error.failure : classifyFailure(error);
      // A remembered 2026-07-28 verdict is adopted without a round trip: when that session fails, probe again next time.
      if (this.verdict?.era === "modern" || this.tools.cachedVerdict()?.era === "modern") this.forgetVerdict();
      this.unsupported = failure.protocolUnsupported;
      const stderr = connection.stderrTail().at(-1);
      if (failure.needsAuth && !this.signIn.signsIn) failure = { transient: false, reason: "HTTP 401: the server refused the Authorization header configured for it" };
      const reason = withoutConfiguredSecrets(stderr && !failure.reason.includes(stderr) ? `${failure.reason} (stderr: ${stderr.slice(0, 200)})` : failure.reason, resolution.config);
      const needsAuth = this.signIn.isAuthFailure(failure);
      if (!this.disposed && needsAuth) this.enterNeedsAuth();
      else if (!this.disposed) {
        this.state = "unavailable";
        this.reason = reason;
        this.noteError(reason);
        this.failedConnects += 1;
        this.retryAt = this.context.now() + this.context.retryDelay(this.failedConnects);
        this.timedOut = failure.timeout === true;
      }
      // A request's failure is news (warn); discovery's are counted in McpManager's start-up summary line.
      if (!needsAuth) this.context.logger[background ? "debug" : "warn"]({ server: this.name, reason, transient: failure.transient }, "mcp server failed to connect");
      throw new ConnectFailure({ transient: failure.transient && !needsAuth, reason, ...(needsAuth ? { needsAuth: true } : {}), ...(failure.protocolUnsupported ? { protocolUnsupported: failure.protocolUnsupported } : {}) });
    } finally {
      if (this.opening === connection) this.opening = undefined;
    }
  }

  private forgetVerdict(): void {
    this.verdict = undefined;
    this.tools.forgetVerdict();
  }

  private connectionLost(connection: ServerConnection, reason: string): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.state = "unavailable";
    this.reason = `${reason}; it restarts on the next call`;
    this.noteError(this.reason);
    this.context.logger.warn({ server: this.name, reason }, "mcp server connection lost");
  }

  private dropConnection(connection: ServerConnection, reason: string): void {
    if (this.connection === connection) {
      this.connection = undefined;
      this.state = "unavailable";
      this.reason = reason;
      this.noteError(reason);
    }
    this.context.track(connection.close());
  }
}
