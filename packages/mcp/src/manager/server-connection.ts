import { redactedMarker, redactSecrets, type HostConfinement, type SpawnLine } from "@thinktank/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ErrorCode, McpError, ResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, ReadResourceRequest, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import { sandboxedStdioUnsupported } from "../servers/resolve-server-config.js";
import type { ResolvedServerConfig } from "../servers/server-entry.js";
import type { StdioSandbox } from "../servers/stdio-sandbox.js";
import { callToolAsTask, requiresTask } from "./call-tool-as-task.js";
import { ConnectTimeoutError } from "./classify-failure.js";
import { createTransport } from "./create-transport.js";
import { readListedTools } from "./listed-tools.js";
import type { ManagerLogger } from "./manager-types.js";
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

/** Lines of a stdio server's stderr kept to explain why it stopped. */
const stderrLinesKept = 20;
/** Shorter env values are not masked in stderr lines ("1", "on", "dev" would mask ordinary words). */
const minMaskedLength = 4;
/** Pages of tools/list followed before giving up on a server whose cursors never end. */
const maxToolPages = 1000;

/** One live session with one server: an SDK Client over its transport. Owned by a ManagedServer. */
export class ServerConnection {
  private readonly client: Client;
  private transport: Transport | undefined;
  private closing = false;
  private closed = false;
  private readonly stderrLines: string[] = [];
  /** Undoes a sandboxed server's launch once its process has ended. */
  private release: (() => void) | undefined;
  private readonly outputCheck = new ToolOutputCheck();
  /** Tools listed with `execution.taskSupport: "required"`: called as tasks. */
  private taskTools = new Set<string>();
  /** The protocol version the server answered initialize with. */
  private negotiated: string | undefined;

  constructor(private readonly options: ServerConnectionOptions) {
    this.client = new Client({ name: options.clientInfo.name, version: options.clientInfo.version }, { capabilities: {} });
    this.client.onerror = (error) => options.logger.debug({ server: options.server, err: error.message }, "mcp transport error");
    this.client.onclose = () => {
      this.release?.();
      if (this.closed) return;
      this.closed = true;
      if (!this.closing) this.options.onUnexpectedClose(this.closeReason());
    };
  }

  /** True until the session closes, on purpose or not. */
  get alive(): boolean {
    return !this.closed && this.transport !== undefined;
  }

  /** The stdio child's pid while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  /** The protocol version the server agreed to in initialize, once open. */
  get protocolVersion(): string | undefined {
    return this.negotiated;
  }

  /** The last lines the stdio server wrote to stderr (empty for remote servers). */
  stderrTail(): string[] {
    return [...this.stderrLines];
  }

  /** Starts the transport and runs initialize, all within `timeoutMs`; cleans up after itself on failure. */
  async open(timeoutMs: number): Promise<void> {
    const { config } = this.options;
    let sandboxed: SpawnLine | undefined;
    if (config.transport === "stdio" && config.sandbox) {
      if (!this.options.stdioSandbox) throw new Error(sandboxedStdioUnsupported);
      const launch = await this.options.stdioSandbox.launch({ name: this.options.server, command: config.command, args: config.args, env: config.env, ...(config.cwd ? { cwd: config.cwd } : {}), network: config.sandbox.network });
      if (!launch.ok) throw new Error(`it cannot start in the sandbox: ${launch.reason}`);
      this.release = launch.release;
      sandboxed = launch;
    } else if (config.transport === "stdio") {
      // How stdio servers are confined is found once per process (a probe), without blocking the event loop.
      await this.options.hostConfinement.detect();
    }
    const transport = createTransport(config, { hostConfinement: this.options.hostConfinement, ...(sandboxed ? { sandboxed } : {}), ...(this.options.fetch ? { fetch: this.options.fetch } : {}) });
    this.transport = transport;
    this.captureStderr(transport);
    observeInitializeResult(transport, (version) => (this.negotiated ??= version));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      await Promise.race([this.client.connect(transport, { timeout: timeoutMs }), timeout]);
    } catch (error) {
      // A child that never answered will not react to its stdin closing either: stop it now.
      await this.close({ terminate: true });
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (this.client.getServerCapabilities()?.tools?.listChanged) {
      this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.options.onToolListChanged());
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
    for (let page = 0; page < maxToolPages; page++) {
      let result: Record<string, unknown>;
      try {
        result = await this.client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: timeoutMs });
      } catch (error) {
        if (page > 0 || !(error instanceof McpError) || error.code !== ErrorCode.MethodNotFound) throw error;
        this.options.logger.debug({ server: this.options.server, err: error.message }, "mcp server has no tools/list: it lists no tools");
        break;
      }
      tools.push(
        ...readListedTools(result, ({ tool, problem, dropped }) =>
          this.options.logger.warn({ server: this.options.server, tool, problem }, dropped ? "mcp tool left out: it cannot be used as listed" : "mcp tool repaired"),
        ),
      );
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
  async callTool(name: string, args: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CallToolResult> {
    const requestOptions = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
    const result = this.taskTools.has(name)
      ? await callToolAsTask(this.client, name, args, options)
      : await this.client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, requestOptions);
    this.outputCheck.check(name, result);
    return result;
  }

  readResource(params: ReadResourceRequest["params"], options: { timeoutMs: number; signal?: AbortSignal }): Promise<ReadResourceResult> {
    return this.client.readResource(params, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /**
   * Ends the session: a stdio child is asked to exit (then terminated), an HTTP session is deleted.
   * `terminate` sends a stdio child SIGTERM at once, for one that is not answering (a connect cut short).
   */
  async close(options: { readonly terminate?: boolean } = {}): Promise<void> {
    if (options.terminate) this.terminate();
    if (this.closing) return;
    this.closing = true;
    const transport = this.transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    }
    await this.client.close().catch(() => {});
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

  private captureStderr(transport: Transport): void {
    if (!(transport instanceof StdioClientTransport)) return;
    let partial = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) this.keepStderrLine(line);
      if (partial.length > 4096) {
        this.keepStderrLine(partial);
        partial = "";
      }
    });
  }

  private keepStderrLine(line: string): void {
    const trimmed = redactSecrets(this.withoutEnvValues(line.trim()));
    if (!trimmed) return;
    this.options.logger.debug({ server: this.options.server, line: trimmed.slice(0, 500) }, "mcp server stderr");
    this.stderrLines.push(trimmed.slice(0, 500));
    if (this.stderrLines.length > stderrLinesKept) this.stderrLines.shift();
  }

  /**
   * The line with the values of the entry's own `env` masked: a server that prints its
   * configuration (or a token it was given) on stderr must not put it in the reasons shown by
   * GET /api/mcp/servers, `thinktank mcp list`, list_servers (the model) and the logs. PATH and
   * HOME come from the host, and values under 4 characters would mask ordinary words.
   */
  private withoutEnvValues(line: string): string {
    const config = this.options.config;
    if (config.transport !== "stdio") return line;
    const values = Object.entries(config.env)
      .filter(([name, value]) => name !== "PATH" && name !== "HOME" && value.length >= minMaskedLength)
      .map(([, value]) => value)
      .sort((a, b) => b.length - a.length);
    let masked = line;
    for (const value of values) masked = masked.replaceAll(value, redactedMarker);
    return masked;
  }

  private closeReason(): string {
    const last = this.stderrLines.at(-1);
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
