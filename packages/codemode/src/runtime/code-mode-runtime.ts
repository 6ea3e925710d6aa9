import path from "node:path";
import type { FastifyInstance } from "fastify";
import { hostConfinementFor, operatorId, type CodeExecutionMode, type Config, type HostConfinement } from "@thinktank/core";
import { createOAuthTokenStore, McpManager, type InputRequiredHandler, type ManagerLogger, type McpServerEntry, type StdioSandbox } from "@thinktank/mcp";
import { createSandboxExecutor, type SandboxExecutor } from "@thinktank/sandbox";
import { CodeMode } from "../code-mode.js";
import type { ExecutionPlace } from "../code-mode-types.js";
import { McpToolInvoker } from "../invoker/mcp-tool-invoker.js";
import type { ToolInvoker } from "../invoker/tool-invoker.js";
import { LazyCodeModeMcpEndpoint } from "../mcp-endpoint/lazy-code-mode-endpoint.js";
import { mountCodeModeEndpoint, type EndpointAuthentication } from "../mcp-endpoint/mount-code-mode-endpoint.js";
import { chooseToolSurface, type ToolSurfaceChoice } from "../surface/choose-tool-surface.js";
import { serverEntriesSource, type ServerEntriesSource } from "./server-entries-source.js";

export interface CodeModeRuntimeOptions {
  /** Where the MCP server entries come from. @default serverEntriesSource(config): extensions_config.json and the enabled plugins */
  readonly servers?: ServerEntriesSource;
  /** @default createSandboxExecutor({ config, searchPath: config.env.PATH }) */
  readonly executor?: SandboxExecutor;
  /** Tool sources after the MCP servers (registered script tools, later). @default none */
  readonly invokers?: readonly ToolInvoker[];
  /** @default a logger that drops everything */
  readonly logger?: ManagerLogger;
  /** Starts the /mcp endpoint's session ids, so a proxy can route a session to this server (CodeModeMcpEndpointOptions). @default none */
  readonly mcpSessionPrefix?: string;
  /** How stdio MCP servers are confined on the host (share the service's). @default hostConfinementFor(config) */
  readonly hostConfinement?: HostConfinement;
  /** Runs stdio MCP servers marked `sandbox: true` in the sandbox (McpManagerOptions.stdioSandbox). @default none: such servers are unavailable */
  readonly stdioSandbox?: StdioSandbox;
}

/**
 * Everything code mode needs in one long-lived process (the agent server): the MCP manager over
 * the snapshot's servers, the sandbox executor and CodeMode, plus the /mcp endpoint and the
 * per-request tool surface. It owns them all; close() stops MCP servers and sandbox workers.
 * Call refresh() per request: it re-reads the server entries (a few stats while nothing
 * changed) and syncs the manager, which replaces only the servers whose config changed.
 */
export class CodeModeRuntime {
  readonly manager: McpManager;
  readonly executor: SandboxExecutor;
  readonly codeMode: CodeMode;
  private readonly servers: ServerEntriesSource;
  private readonly mcpSessionPrefix: string | undefined;
  private entries: Readonly<Record<string, McpServerEntry>> | undefined;
  private closed = false;

  constructor(
    private readonly config: Config,
    options: CodeModeRuntimeOptions = {},
  ) {
    this.servers = options.servers ?? serverEntriesSource(config);
    this.mcpSessionPrefix = options.mcpSessionPrefix;
    this.manager = new McpManager({
      mcp: config.mcp,
      env: config.env,
      oauthStore: createOAuthTokenStore(config),
      hostConfinement: options.hostConfinement ?? hostConfinementFor(config),
      ...(options.stdioSandbox ? { stdioSandbox: options.stdioSandbox } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.executor = options.executor ?? createSandboxExecutor({ config, ...(config.env.PATH ? { searchPath: config.env.PATH } : {}), ...(options.logger ? { logger: options.logger } : {}) });
    this.codeMode = new CodeMode({
      config,
      executor: this.executor,
      network: config.sandbox.network.allow,
      replayDir: path.join(config.data_dir, "code-mode", "replays"),
      invokers: [new McpToolInvoker(this.manager), ...(options.invokers ?? [])],
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  /**
   * Brings the manager in line with the current server entries, and starts background connects of
   * servers whose tools are unknown (or that failed, once their backoff has passed); never waits
   * for a server. Cheap when nothing changed. With `user` (a caller's id), also their own remote
   * servers and their sessions of servers that sign in per user.
   */
  async refresh(user?: string): Promise<void> {
    const entries = await this.servers.read();
    if (entries !== this.entries) {
      this.entries = entries;
      this.manager.sync(entries);
      this.codeMode.catalog.refresh();
    }
    // A user's own remote servers (`~<name>`): the same object while unchanged, so syncUser costs a comparison.
    if (user !== undefined && user !== operatorId && this.servers.readUser) this.manager.syncUser(user, await this.servers.readUser(user));
    this.manager.discoverInBackground(user);
  }

  /**
   * The MCP part of a request's tool surface (direct or code mode per config.code_execution, or
   * `options.mode` when given: an assistant's code_execution.mode).
   */
  async surface(place: ExecutionPlace, options: { readonly mode?: CodeExecutionMode; readonly onInputRequired?: InputRequiredHandler } = {}): Promise<ToolSurfaceChoice> {
    await this.refresh(place.userId);
    const { auto_threshold_tokens: autoThresholdTokens } = this.config.code_execution;
    const mode = options.mode ?? this.config.code_execution.mode;
    return chooseToolSurface({ codeMode: this.codeMode, manager: this.manager, mode, autoThresholdTokens, place, ...(options.onInputRequired ? { onInputRequired: options.onInputRequired } : {}) });
  }

  /**
   * Mounts the MCP endpoint at /mcp; the runtime closes with the app. Who may call it:
   * `options.authenticate` (the agent server's callers), else THINKTANK_API_KEY when set.
   */
  mountMcpEndpoint(app: FastifyInstance, options: { readonly authenticate?: EndpointAuthentication } = {}): void {
    const endpoint = new LazyCodeModeMcpEndpoint({
      codeMode: this.codeMode,
      beforeRequest: (caller) => this.refresh(caller),
      ...(this.mcpSessionPrefix ? { sessionIdPrefix: this.mcpSessionPrefix } : {}),
    });
    mountCodeModeEndpoint(app, endpoint, { ...(this.config.api_key ? { apiKey: this.config.api_key } : {}), ...(options.authenticate ? { authenticate: options.authenticate } : {}), onClose: () => this.close() });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.codeMode.close();
    await this.manager.close();
    await this.executor.close();
    this.servers.close();
  }
}
