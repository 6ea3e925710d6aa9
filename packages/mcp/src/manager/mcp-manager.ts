import { HostConfinement, operatorId, ThinktankError } from "@thinktank/core";
import type { CallToolResult, ReadResourceRequest, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import type { ManagedServer } from "./managed-server.js";
import { reconcileServers } from "./reconcile-servers.js";
import { ServerDiscovery, within } from "./server-discovery.js";
import type { ManagedServerContext } from "./managed-server.js";
import { UserServers } from "./user-servers.js";
import { validateSettings } from "./validate-settings.js";
import type { CallOptions, ConnectAllOptions, ManagerLogger, ManagerStatusReport, McpManagerOptions, ServerStatus, SyncReport, ToolsChangedEvent } from "./manager-types.js";

const silentLogger: ManagerLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Keeps one session per configured MCP server and routes calls to it. Servers connect lazily on
 * first use, all at once with connectAll, or off the request path with discoverInBackground
 * (failed servers are retried there with backoff); a session is reused by every call and replaced only
 * when its resolved config changes (sync) or it dies. One failing server never affects the others.
 * Tool lists are cached in `mcp.catalog_dir` so search and code generation need no live server.
 *
 * Users: every method that reads or calls takes the caller's id (`user`, default the operator).
 * A server whose sessions carry a user's credentials (a remote server that signs in with OAuth)
 * has one session per user, with that user's tokens; the operator's is the shared one. A user's
 * own remote servers (syncUser, named `~<name>`) are theirs alone. See UserServers.
 */
export class McpManager {
  private readonly servers = new Map<string, ManagedServer>();
  private readonly listeners = new Set<(event: ToolsChangedEvent) => void>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly context: ManagedServerContext;
  private readonly discovery: ServerDiscovery;
  /** Each user's sessions and own servers, made on their first use. */
  private readonly users = new Map<string, UserServers>();
  private readonly oauthStore: McpManagerOptions["oauthStore"];
  private readonly userIdleMs: number;
  private lastUserSweep = 0;
  private closed = false;
  private summarized = false;
  /** Why stdio servers marked `sandbox: true` cannot run here, once the stdio sandbox has said. */
  private stdioSandboxProblem: string | undefined;

  constructor(options: McpManagerOptions, entries: Readonly<Record<string, McpServerEntry>> = {}) {
    validateSettings(options);
    this.oauthStore = options.oauthStore;
    this.userIdleMs = options.userIdleMs ?? 1_800_000;
    const logger = options.logger ?? silentLogger;
    const { discovery_retry_base_ms: retryBase = 5000, discovery_retry_max_ms: retryMax = 300_000 } = options.mcp;
    this.context = {
      settings: options.mcp,
      env: options.env,
      logger,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      now: options.now ?? Date.now,
      clientInfo: options.clientInfo ?? { name: "thinktank", version: "0.1.0" },
      writeCatalog: options.writeCatalog ?? true,
      emitToolsChanged: (event) => this.emit(event),
      track: (work) => this.track(work),
      retryDelay: (failures) => Math.min(retryMax, retryBase * 2 ** Math.min(failures - 1, 30)),
      ...(options.oauthStore ? { oauthStore: options.oauthStore } : {}),
      hostConfinement: options.hostConfinement ?? new HostConfinement(options.env.PATH ? { searchPath: options.env.PATH } : {}),
      ...(options.stdioSandbox ? { stdioSandbox: options.stdioSandbox } : {}),
      stdioSandboxProblem: () => this.stdioSandboxProblem,
    };
    // Asked now, so a server that can only run sandboxed shows as unavailable (with the reason) before anything tries it.
    void options.stdioSandbox?.availability().then(
      (availability) => (this.stdioSandboxProblem = availability.ok ? undefined : availability.reason),
      (error: unknown) => (this.stdioSandboxProblem = `the sandbox could not say whether it runs stdio servers: ${(error as Error).message}`),
    );
    // Probed now, off the request path, so the first stdio connect finds it done.
    void this.context.hostConfinement.detect();
    this.discovery = new ServerDiscovery({
      servers: () => this.serverNames().map((name) => this.require(name)),
      concurrency: options.mcp.discovery_concurrency ?? 8,
      graceMs: options.mcp.first_connect_grace_ms ?? 3000,
      now: this.context.now,
      track: (work) => this.track(work),
    });
    this.sync(entries);
  }

  /**
   * Adopts a new set of server entries (disabled ones are left out). Servers whose resolved config
   * is unchanged keep their session; changed ones are replaced (and reconnected in the background
   * when their tool list was known, live or cached, so the cache follows the config); removed ones
   * are closed and their cached tool list deleted. New ones connect on first use or connectAll.
   * Call settled() to wait for the background work.
   */
  sync(entries: Readonly<Record<string, McpServerEntry>>): SyncReport {
    this.assertOpen();
    return reconcileServers(this.servers, entries, this.context, {
      removed: (name, server) => {
        for (const user of this.users.values()) user.forget(name);
        this.track(server.dispose(true));
      },
      replaced: (name, current, next) => {
        for (const user of this.users.values()) user.forget(name);
        // Its tool list is known (live or cached) but may no longer be right: fetch it again.
        const refresh = current.status().state === "connected" || current.knownTools() !== undefined;
        this.track(current.dispose(false).then(() => (refresh ? next.connect() : undefined)));
      },
    });
  }

  /**
   * Adopts a user's own remote servers (keyed `~<name>`, see userServerName), as sync does for
   * the shared ones; only that user sees them. FORBIDDEN for a stdio entry or a name without `~`.
   */
  syncUser(user: string, entries: Readonly<Record<string, McpServerEntry>>): SyncReport {
    this.assertOpen();
    if (user === operatorId && Object.keys(entries).length > 0) throw new ThinktankError("VALIDATION_FAILED", "the operator's servers are the shared ones (sync), not own servers");
    return this.userServers(user).sync(entries);
  }

  /** Names of the servers `user` sees (the shared ones, then their own `~` ones), sorted. */
  serverNames(user?: string): string[] {
    const shared = [...this.servers.keys()].sort();
    if (user === undefined || user === operatorId) return shared;
    const own = this.users.get(user)?.ownNames() ?? [];
    return own.length > 0 ? [...shared, ...own] : shared;
  }

  /** Every server's status as `user` sees it, sorted by name; never connects. */
  status(user?: string): ServerStatus[] {
    return this.serverNames(user).map((name) => this.require(name, user).status());
  }

  /**
   * Every status the manager holds now, for the status record (McpStatusRecorder): the shared
   * servers as the operator sees them, and per user with sessions of their own, those sessions and
   * their own servers. Makes no session and connects nothing.
   */
  statusReport(): ManagerStatusReport {
    if (this.closed) return { shared: [], users: {} };
    const users: Record<string, ServerStatus[]> = {};
    for (const [user, mine] of this.users) {
      const statuses = mine.statuses();
      if (statuses.length > 0) users[user] = statuses;
    }
    return { shared: this.status(), users };
  }

  statusOf(server: string, user?: string): ServerStatus {
    return this.require(server, user).status();
  }

  /** Connects one server (with retries) and answers its status; never throws for a failing server. */
  async connect(server: string, user?: string): Promise<ServerStatus> {
    const managed = this.require(server, user);
    await managed.connect();
    return managed.status();
  }

  /**
   * Connects every server not yet connected, `concurrency` at a time, reporting each as it settles.
   * Answers every server's status; a failing server is reported, never thrown. `once` makes one
   * attempt per server, as background discovery does, instead of the retry loop; `deadlineMs`
   * stops waiting after that long, answering servers still connecting as they stand (`connecting`).
   */
  async connectAll(options: ConnectAllOptions = {}): Promise<ServerStatus[]> {
    const names = options.servers ? [...options.servers] : this.serverNames(options.user);
    const servers = names.map((name) => this.require(name, options.user));
    const concurrency = Math.max(1, options.concurrency ?? 4);
    let next = 0;
    let done = 0;
    let late = false;
    const worker = async (): Promise<void> => {
      while (next < servers.length && !late) {
        const server = servers[next++] as ManagedServer;
        await (options.once ? server.attemptConnect() : server.connect());
        done += 1;
        if (!late) options.onProgress?.({ server: server.name, status: server.status(), done, total: names.length });
      }
    };
    const all = Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
    if (options.deadlineMs === undefined) await all;
    else await within(all, options.deadlineMs);
    late = true;
    return servers.map((server) => server.status());
  }

  /**
   * Starts connecting, in the background and `mcp.discovery_concurrency` at a time, every server
   * whose tools are unknown (no live session, no cached list for its entry), and every server whose
   * last connect failed once its backoff has passed (`discovery_retry_base_ms`, doubling per failure
   * up to `discovery_retry_max_ms`). One attempt each, no retry loop; never waits, never throws.
   * Answers the names queued now. Call it as often as you like (per request): it is a few checks per server.
   */
  discoverInBackground(user?: string): string[] {
    if (this.closed) return [];
    this.closeIdleUsers();
    if (user !== undefined && user !== operatorId) return [...this.discoverInBackground(), ...this.userServers(user).discoverInBackground()];
    const queued = this.discovery.start();
    if (!this.summarized && queued.length > 0) {
      this.summarized = true;
      this.track(this.discovery.firstAttemptsDone().then(() => this.logStartUpSummary()));
    }
    return queued;
  }

  /**
   * One line once the first background round is over, counting servers by the state they ended in,
   * instead of a warning per server (each one's reason is at debug level and in `thinktank mcp list`).
   */
  private logStartUpSummary(): void {
    if (this.closed) return;
    const statuses = this.status();
    const offline = statuses.filter((status) => status.state === "unavailable").length;
    const needsAuth = statuses.filter((status) => status.state === "needs_auth").length;
    const of = `of ${statuses.length} MCP servers`;
    if (offline === 0 && needsAuth === 0) {
      this.context.logger.info({ servers: statuses.length }, `mcp servers: none offline or waiting for sign-in (${statuses.length} configured)`);
      return;
    }
    const parts = [...(offline > 0 ? [`${offline} offline`] : []), ...(needsAuth > 0 ? [`${needsAuth} need sign-in`] : [])];
    this.context.logger.warn({ offline, needs_auth: needsAuth, servers: statuses.length }, `mcp servers: ${parts.join(", ")} (${of}); \`thinktank mcp list\` shows each one's reason`);
  }

  /**
   * Resolves once every server on its first background attempt has finished it or used up
   * `mcp.first_connect_grace_ms` (counted from when it was queued, or from when the session's code had loaded if later), so a request right after
   * start-up can offer a server that connects quickly; later requests never wait.
   */
  firstConnectsSettled(user?: string): Promise<void> {
    if (user === undefined || user === operatorId) return this.discovery.firstConnectsSettled();
    const mine = this.users.get(user);
    return mine ? Promise.all([this.discovery.firstConnectsSettled(), mine.firstConnectsSettled()]).then(() => undefined) : this.discovery.firstConnectsSettled();
  }

  /**
   * Servers whose tools can be offered now, sorted: tools known (live, or cached for the current
   * entry), the entry usable, and no failed connect since. Never connects.
   */
  readyServers(user?: string): string[] {
    return this.serverNames(user).filter((name) => this.require(name, user).isReady());
  }

  /** A server's tools from its live session (connecting if needed, with retries). */
  async listTools(server: string, user?: string): Promise<CatalogTool[]> {
    return this.require(server, user).listTools();
  }

  /** A server's tools as last known (live, else its cached list on disk); never connects. */
  knownTools(server: string, user?: string): readonly CatalogTool[] | undefined {
    return this.require(server, user).knownTools();
  }

  /**
   * Calls a tool. The result is the server's answer as is (`isError` and `structuredContent`
   * included). Throws MCP_SERVER_NOT_FOUND, MCP_TOOL_NOT_FOUND, MCP_CALL_TIMEOUT,
   * MCP_PROTOCOL_ERROR, or SERVICE_UNAVAILABLE naming the server once retries are spent.
   */
  async callTool(server: string, tool: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<CallToolResult> {
    return this.require(server, options.user).callTool(tool, args, options);
  }

  async readResource(server: string, params: ReadResourceRequest["params"], options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.require(server, options.user).readResource(params, options);
  }

  /** Subscribes to tool-list changes (for code generation and search); answers the unsubscribe function. */
  onToolsChanged(listener: (event: ToolsChangedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once background work (closing replaced sessions, reconnecting, tool-list refreshes) is done. */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await Promise.all([...[...this.servers.values()].map((server) => server.settled()), ...[...this.users.values()].map((user) => user.settled())]);
  }

  /** Closes every session (stdio children exit); the manager cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.discovery.close();
    const servers = [...this.servers.values()];
    this.servers.clear();
    const users = [...this.users.values()];
    this.users.clear();
    await Promise.allSettled([...servers.map((server) => server.dispose(false)), ...users.map((user) => user.close())]);
    await this.settled();
  }

  /** The ManagedServer `user` reaches by this name: the shared one, their own session of it, or their own server. */
  private require(server: string, user?: string): ManagedServer {
    this.assertOpen();
    const shared = this.servers.get(server);
    if (shared) return user === undefined || !shared.perUser || user === operatorId ? shared : this.userServers(user).instanceOf(shared);
    const own = user === undefined || user === operatorId ? undefined : this.users.get(user)?.ownServer(server);
    if (!own) throw new ThinktankError("MCP_SERVER_NOT_FOUND", `no MCP server named '${server}' (configured: ${this.serverNames(user).join(", ") || "none"})`, { details: { server } });
    return own;
  }

  /** Closes the sessions of users unused for userIdleMs (looked at once a minute at most, from discoverInBackground). */
  private closeIdleUsers(): void {
    const now = this.context.now();
    if (now - this.lastUserSweep < Math.min(60_000, this.userIdleMs)) return;
    this.lastUserSweep = now;
    for (const [user, mine] of this.users) {
      if (now - mine.lastUsed < this.userIdleMs) continue;
      this.users.delete(user);
      this.track(mine.close());
    }
  }

  private userServers(user: string): UserServers {
    let mine = this.users.get(user);
    if (!mine) {
      mine = new UserServers({
        user,
        context: this.context,
        oauthStore: this.oauthStore,
        shared: () => this.servers.values(),
        concurrency: this.context.settings.discovery_concurrency ?? 8,
        graceMs: this.context.settings.first_connect_grace_ms ?? 3000,
      });
      this.users.set(user, mine);
    }
    mine.lastUsed = this.context.now();
    return mine;
  }

  private assertOpen(): void {
    if (this.closed) throw new ThinktankError("SERVICE_UNAVAILABLE", "the MCP manager was closed");
  }

  private emit(event: ToolsChangedEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.context.logger.error({ server: event.server, err: String(error) }, "an onToolsChanged listener threw");
      }
    }
  }

  private track(work: Promise<unknown>): void {
    const guarded = work.catch((error) => this.context.logger.warn({ err: String(error) }, "mcp background work failed"));
    this.background.add(guarded);
    void guarded.finally(() => this.background.delete(guarded));
  }
}
