import type { HostConfinement, SpawnLine } from "@thinktank/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ErrorCode, McpError, ResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { preloadSchemas, ProtocolError } from "@modelcontextprotocol/client";
import type { Transport as ModernTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, ReadResourceRequest, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import { sandboxedStdioUnsupported } from "../servers/resolve-server-config.js";
import type { ResolvedServerConfig } from "../servers/server-entry.js";
import type { StdioSandbox } from "../servers/stdio-sandbox.js";
import { callToolAsTask, requiresTask } from "./call-tool-as-task.js";
import { ConnectTimeoutError, isRequestTimeout } from "./classify-failure.js";
import { createModernTransport } from "./create-modern-transport.js";
import { createTransport } from "./create-transport.js";
import { readListedTools } from "./listed-tools.js";
import type { ManagerLogger } from "./manager-types.js";
import { ModernSession, type InputRequiredHandler } from "./modern-session.js";
import { initializeVersionRefusal, legacyProtocolVersion, modernProtocolVersion, probeOutcome, ProtocolUnsupportedError, type EraVerdict, type ProbeOutcome } from "./protocol-era.js";
import { StderrTail } from "./stderr-tail.js";
import { StdioHandOff } from "./stdio-hand-off.js";
import { ToolOutputCheck } from "./tool-output-check.js";

export interface ServerConnectionOptions {
  readonly server: string;
  readonly config: ResolvedServerConfig;
  readonly logger: ManagerLogger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Called once when the connection ends without close() being asked for (a crash, a dropped stream). */
  readonly onUnexpectedClose: (reason: string) => void;
  /** Called on each notifications/tools/list_changed. */
  readonly onToolListChanged: () => void;
  /** A remote server's fetch (the OAuth token source's), else the global one. */
  readonly fetch?: FetchLike;
  /** Confines a stdio server on the host. */
  readonly hostConfinement: HostConfinement;
  /** Starts a stdio server marked `sandbox: true` (config.sandbox set) in the sandbox; required for such a config. */
  readonly stdioSandbox?: StdioSandbox;
}

/** Pages of tools/list followed before giving up on a server whose cursors never end. */
const maxToolPages = 1000;

/**
 * One live session with one server, in the era it speaks: the 2025 era (initialize) on the v1
 * SDK's Client (`@modelcontextprotocol/sdk`), the 2026-07-28 era (`server/discover`, stateless)
 * on the v2 Client (`@modelcontextprotocol/client`, ModernSession). open() tries them in turn
 * (see there); everything after answers the same whatever the era. Owned by a ManagedServer.
 */
export class ServerConnection {
  private readonly client: Client;
  /** The 2026-07-28 session, when the server speaks it. */
  private modern: ModernSession | undefined;
  private transport: Transport | ModernTransport | undefined;
  private closing = false;
  private closed = false;
  private readonly stderr: StderrTail;
  /** A stdio child shared by the era attempts (see StdioHandOff). */
  private handOff: StdioHandOff | undefined;
  /** A sandboxed stdio server's launch line (one launch serves both eras' attempts). */
  private sandboxed: SpawnLine | undefined;
  /** Undoes a sandboxed server's launch once its process has ended. */
  private release: (() => void) | undefined;
  private readonly outputCheck = new ToolOutputCheck();
  /** Tools listed with `execution.taskSupport: "required"`: called as tasks. */
  private taskTools = new Set<string>();
  /** The protocol version the server answered initialize with. */
  private negotiated: string | undefined;
  /** ttlMs of the last tools/list (2026-07-28: how long the list may be used without asking again). */
  private listTtlMs: number | undefined;

  constructor(private readonly options: ServerConnectionOptions) {
    this.stderr = new StderrTail(options.server, options.config, options.logger);
    this.client = new Client({ name: options.clientInfo.name, version: options.clientInfo.version }, { capabilities: {} });
    this.client.onerror = (error) => options.logger.debug({ server: options.server, err: error.message }, "mcp transport error");
  }

  /** True until the session closes, on purpose or not. */
  get alive(): boolean {
    return !this.closed && this.transport !== undefined;
  }

  /** The stdio child's pid while it runs. */
  get pid(): number | undefined {
    const transport = this.transport as { pid?: number | null } | undefined;
    return transport instanceof StdioClientTransport || this.options.config.transport === "stdio" ? (transport?.pid ?? undefined) : undefined;
  }

  /** The protocol version the server agreed to (initialize's, or the 2026-07-28 discover's), once open. */
  get protocolVersion(): string | undefined {
    return this.modern ? this.modern.protocolVersion : this.negotiated;
  }

  /** What the server speaks, once open: remembered by its ManagedServer for its next sessions. */
  get verdict(): EraVerdict | undefined {
    if (this.modern) {
      const discover = this.modern.discover;
      return discover ? { era: "modern", discover } : undefined;
    }
    return this.negotiated ? { era: "legacy" } : undefined;
  }

  /** The last tool list's ttlMs (2026-07-28 cacheable lists); undefined in the 2025 era, or when the server gave none. */
  get toolListTtlMs(): number | undefined {
    return this.listTtlMs;
  }

  /** The last lines the stdio server wrote to stderr (empty for remote servers). */
  stderrTail(): string[] {
    return this.stderr.all();
  }

  /**
   * Opens a session within `timeoutMs`, in the era the server speaks: first the one `remembered`
   * names (a 2026-07-28 verdict's discover result is adopted without a round trip), else
   * 2026-07-28 (a `server/discover` probe), then the other; an SSE server speaks only the 2025
   * era. An attempt that shows the server does not speak its era (no 2026-07-28 in the probe's
   * answer; initialize refused with another version) goes on to the next; any other failure is the
   * connect's. A server that refuses both fails with ProtocolUnsupportedError naming the versions
   * tried. Cleans up after itself on failure.
   */
  async open(timeoutMs: number, remembered?: EraVerdict): Promise<void> {
    // The v2 SDK builds its wire schemas on first use (tens of ms): once per process, before the clock starts.
    preloadSchemas();
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    const eras: ("legacy" | "modern")[] = this.options.config.transport === "sse" ? ["legacy"] : remembered?.era === "legacy" ? ["legacy", "modern"] : ["modern", "legacy"];
    const tried: string[] = [];
    const offered = new Set<string>();
    let detail = "";
    for (const era of eras) {
      try {
        if (era === "modern") await this.openModern(left(), remembered?.era === "modern" ? remembered : undefined);
        else await this.openLegacy(left());
        return;
      } catch (caught) {
        // A later attempt ran out of what was left: the connect as a whole ran out of its time.
        const error = caught instanceof ConnectTimeoutError || isRequestTimeout(caught) ? new ConnectTimeoutError(timeoutMs) : caught;
        const refusal = this.eraRefusal(era, error);
        if (refusal.kind === "failed" || era === eras.at(-1)) await this.close({ terminate: true });
        else await this.discardAttempt();
        if (refusal.kind === "failed") throw refusal.error;
        tried.push(era === "modern" ? `${modernProtocolVersion} (server/discover)` : `${legacyProtocolVersion} (initialize)`);
        for (const version of refusal.offered ?? []) offered.add(version);
        // A probe that ended without an answer (a slow stdio start) while initialize says the server speaks 2026-07-28: probe once more.
        if (era === "legacy" && refusal.offered?.includes(modernProtocolVersion) && eras.filter((each) => each === "modern").length < 2) eras.push("modern");
        detail = refusal.detail;
        this.options.logger.debug({ server: this.options.server, era, reason: detail }, "mcp server does not speak this protocol era");
      }
    }
    throw new ProtocolUnsupportedError(tried, offered.size > 0 ? [...offered] : undefined, detail);
  }

  /** Whether an attempt's failure shows the server does not speak that era (go on to the next), or is the connect's own. */
  private eraRefusal(era: "legacy" | "modern", error: unknown): ProbeOutcome {
    if (error instanceof ConnectTimeoutError) return { kind: "failed", error };
    if (era === "modern") return probeOutcome(error);
    const refusal = initializeVersionRefusal(error);
    return refusal ? { kind: "legacy", ...refusal, detail: error instanceof Error ? error.message : String(error) } : { kind: "failed", error };
  }

  /** A 2026-07-28 session on the v2 Client (ModernSession), pinned: it probes with server/discover, or adopts `remembered`. */
  private async openModern(timeoutMs: number, remembered: Extract<EraVerdict, { era: "modern" }> | undefined): Promise<void> {
    await this.prepareStdio();
    const transport = this.options.config.transport === "stdio" ? this.stdioTransport() : createModernTransport(this.options.config, this.transportOptions());
    if (!transport) throw new Error("the SSE transport has no 2026-07-28 binding");
    this.transport = transport;
    const modern = new ModernSession(this.options.clientInfo);
    this.modern = modern;
    modern.client.onerror = (error) => this.options.logger.debug({ server: this.options.server, err: error.message }, "mcp transport error");
    await this.raceTimeout(timeoutMs, modern.connect(transport as ModernTransport, timeoutMs, remembered?.discover));
    if (transport instanceof StdioHandOff) transport.hold = false;
    modern.client.onclose = () => this.closedUnderneath();
  }

  /**
   * The stdio transport of an attempt: the child the previous attempt left running (a probe that
   * found a 2025-era server hands its child on), else a new one, wrapped to be handed on.
   */
  private stdioTransport(): StdioHandOff | Transport {
    if (this.handOff && !this.handOff.ended) return this.handOff;
    const transport = createTransport(this.options.config, this.transportOptions());
    if (!(transport instanceof StdioClientTransport)) return transport;
    observeInitializeResult(transport, (version) => (this.negotiated ??= version));
    this.handOff = new StdioHandOff(transport);
    this.captureStderr(transport);
    return this.handOff;
  }

  /** Ends a failed attempt's client, leaving a stdio child running for the next attempt (StdioHandOff). */
  private async discardAttempt(): Promise<void> {
    const modern = this.modern;
    this.modern = undefined;
    if (modern) await modern.close().catch(() => {});
    else await this.client.close().catch(() => {});
    if (!(this.transport instanceof StdioHandOff)) await this.transport?.close().catch(() => {});
    this.transport = undefined;
  }

  /** A 2025-era session on the v1 SDK's Client: transport started, initialize run. */
  private async openLegacy(timeoutMs: number): Promise<void> {
    this.modern = undefined;
    await this.prepareStdio();
    let transport: Transport;
    if (this.options.config.transport === "stdio") transport = this.stdioTransport();
    else {
      transport = createTransport(this.options.config, this.transportOptions());
      observeInitializeResult(transport, (version) => (this.negotiated ??= version));
    }
    this.transport = transport;
    await this.raceTimeout(timeoutMs, this.client.connect(transport, { timeout: timeoutMs }));
    if (transport instanceof StdioHandOff) transport.hold = false;
    this.client.onclose = () => this.closedUnderneath();
    if (this.client.getServerCapabilities()?.tools?.listChanged) {
      this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.options.onToolListChanged());
    }
  }

  /** The session ended without close() being asked for (a crash, a dropped stream), or by it. */
  private closedUnderneath(): void {
    this.release?.();
    if (this.closed) return;
    this.closed = true;
    if (!this.closing) this.options.onUnexpectedClose(this.closeReason());
  }

  private async raceTimeout(timeoutMs: number, work: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeoutError(timeoutMs)), timeoutMs);
    });
    work.catch(() => undefined);
    try {
      await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private transportOptions() {
    return { hostConfinement: this.options.hostConfinement, ...(this.sandboxed ? { sandboxed: this.sandboxed } : {}), ...(this.options.fetch ? { fetch: this.options.fetch } : {}) };
  }

  /** A sandboxed stdio server is launched once (its line serves every attempt); a confined one needs the confinement found. */
  private async prepareStdio(): Promise<void> {
    const { config } = this.options;
    if (this.sandboxed) return;
    if (config.transport === "stdio" && config.sandbox) {
      if (!this.options.stdioSandbox) throw new Error(sandboxedStdioUnsupported);
      const launch = await this.options.stdioSandbox.launch({ name: this.options.server, command: config.command, args: config.args, env: config.env, ...(config.cwd ? { cwd: config.cwd } : {}), network: config.sandbox.network });
      if (!launch.ok) throw new Error(`it cannot start in the sandbox: ${launch.reason}`);
      this.release = launch.release;
      this.sandboxed = launch;
    } else if (config.transport === "stdio") {
      // How stdio servers are confined is found once per process (a probe), without blocking the event loop.
      await this.options.hostConfinement.detect();
    }
  }

  /**
   * Every tool the server lists, following nextCursor. Each tool is checked on its own
   * (readListedTools): a malformed one is repaired or left out, with a warning, instead of failing
   * the list. A server without tools (one that answers tools/list "method not found", such as a
   * server of prompts or resources only) lists none.
   */
  async listAllTools(timeoutMs: number): Promise<CatalogTool[]> {
    const tools: CatalogTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    this.listTtlMs = undefined;
    for (let page = 0; page < maxToolPages; page++) {
      let result: Record<string, unknown>;
      try {
        result = this.modern
          ? await this.modern.listToolsPage(cursor, timeoutMs)
          : await this.client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: timeoutMs });
      } catch (error) {
        if (page > 0 || !(error instanceof McpError || error instanceof ProtocolError) || error.code !== ErrorCode.MethodNotFound) throw error;
        this.options.logger.debug({ server: this.options.server, err: error.message }, "mcp server has no tools/list: it lists no tools");
        break;
      }
      tools.push(
        ...readListedTools(result, ({ tool, problem, dropped }) =>
          this.options.logger.warn({ server: this.options.server, tool, problem }, dropped ? "mcp tool left out: it cannot be used as listed" : "mcp tool repaired"),
        ),
      );
      // A cacheable list (2026-07-28): the first page's ttlMs says how long the whole list stays fresh.
      if (page === 0 && typeof result.ttlMs === "number" && Number.isFinite(result.ttlMs) && result.ttlMs >= 0) this.listTtlMs = result.ttlMs;
      cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    this.taskTools = new Set(tools.filter(requiresTask).map((tool) => tool.name));
    this.outputCheck.update(tools, (tool, reason) =>
      this.options.logger.warn({ server: this.options.server, tool, reason }, "mcp tool outputSchema cannot be compiled: its results are not checked"),
    );
    return tools;
  }

  /**
   * Calls a tool (as a task when the server runs it only as one); a result that does not match the
   * tool's (compilable) outputSchema is an error, as in the SDK's Client.callTool.
   */
  async callTool(name: string, args: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal; onInputRequired?: InputRequiredHandler }): Promise<CallToolResult> {
    const requestOptions = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
    const result = this.modern
      ? await this.modern.callTool(this.options.server, name, args, options)
      : this.taskTools.has(name)
      ? await callToolAsTask(this.client, name, args, options)
      : await this.client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, requestOptions);
    this.outputCheck.check(name, result);
    return result;
  }

  readResource(params: ReadResourceRequest["params"], options: { timeoutMs: number; signal?: AbortSignal }): Promise<ReadResourceResult> {
    if (this.modern) return this.modern.readResource(params, options);
    return this.client.readResource(params, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /**
   * Ends the session: a stdio child is asked to exit (then terminated), an HTTP session is deleted.
   * `terminate` sends a stdio child SIGTERM at once, for one that is not answering (a connect cut short).
   */
  async close(options: { readonly terminate?: boolean } = {}): Promise<void> {
    if (this.handOff) this.handOff.hold = false;
    if (options.terminate) this.terminate();
    if (this.closing) return;
    this.closing = true;
    const transport = this.transport ?? this.handOff;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    }
    if (this.modern) await this.modern.close().catch(() => {});
    else await this.client.close().catch(() => {});
    if (transport && !this.closed) await transport.close().catch(() => {});
    this.closed = true;
    this.release?.();
  }

  private terminate(): void {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }

  private captureStderr(transport: Transport | ModernTransport): void {
    if (this.options.config.transport === "stdio") this.stderr.capture((transport as { stderr?: NodeJS.ReadableStream | null }).stderr);
  }

  private closeReason(): string {
    const last = this.stderr.last();
    const what = this.options.config.transport === "stdio" ? "the server process exited" : "the connection closed";
    return last ? `${what} (stderr: ${last.slice(0, 200)})` : what;
  }
}

/**
 * Calls `seen` with the protocolVersion of the first result that carries one (initialize's: the
 * SDK's Client keeps it to itself). Wraps whatever handler the Client installs as the transport's
 * onmessage, so every message still reaches it unchanged.
 */
function observeInitializeResult(transport: Transport, seen: (version: string) => void): void {
  let handler: Transport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport["onmessage"]) => {
      handler = next
        ? (message, extra) => {
            const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
            if (typeof version === "string") seen(version);
            next(message, extra);
          }
        : undefined;
    },
  });
}
