import type { CatalogTool, McpManager } from "@thinktank/mcp";
import type { ServerSummary } from "../code-mode-types.js";
import type { DiscoverOptions, ToolCallResult, ToolInvocationOptions, ToolInvoker } from "./tool-invoker.js";

export interface McpToolInvokerOptions {
  /**
   * Start background discovery (McpManager.discoverInBackground) on every discover(). A one-shot
   * process (`thinktank exec`) turns it off: it connects only the servers a program names or calls.
   * @default true
   */
  readonly background?: boolean;
}

/** The MCP manager's servers (configured and plugin-merged, enabled only) as a ToolInvoker. */
export class McpToolInvoker implements ToolInvoker {
  constructor(
    private readonly manager: McpManager,
    private readonly options: McpToolInvokerOptions = {},
  ) {}

  serverNames(user?: string): readonly string[] {
    return this.manager.serverNames(user);
  }

  describe(server: string, user?: string): ServerSummary {
    const status = this.manager.statusOf(server, user);
    return {
      name: status.name,
      ...(status.description ? { description: status.description } : {}),
      transport: status.transport ?? "unknown",
      status: status.state,
      ...(status.toolCount !== undefined ? { tool_count: status.toolCount } : {}),
      ...(status.reason ? { reason: status.reason } : {}),
      ...(status.code ? { code: status.code, ...(status.versionsTried ? { versions_tried: status.versionsTried } : {}) } : {}),
    };
  }

  knownTools(server: string, user?: string): readonly CatalogTool[] | undefined {
    return this.manager.knownTools(server, user);
  }

  listTools(server: string, user?: string): Promise<readonly CatalogTool[]> {
    return this.manager.listTools(server, user);
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options: ToolInvocationOptions = {}): Promise<ToolCallResult> {
    const result = await this.manager.callTool(server, tool, args, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.user !== undefined ? { user: options.user } : {}),
      ...(options.onInputRequired ? { onInputRequired: options.onInputRequired } : {}),
    });
    return result as ToolCallResult;
  }

  onToolsChanged(listener: (server: string) => void): () => void {
    return this.manager.onToolsChanged((event) => listener(event.server));
  }

  /**
   * Background discovery (McpManager.discoverInBackground), waiting only within new servers'
   * first-connect grace; `complete` connects every server whose tools are unknown and that is not
   * known to be down, and waits for them; `servers` does the same for those servers only, one
   * attempt each, with no grace wait for the others (a program that names no server starts at once).
   */
  async discover(options: DiscoverOptions = {}): Promise<void> {
    const user = options.user;
    if (this.options.background !== false) this.manager.discoverInBackground(user);
    if (!options.complete && options.servers === undefined) {
      await this.manager.firstConnectsSettled(user);
      return;
    }
    const named = options.servers === undefined ? undefined : new Set(options.servers);
    const waiting = this.manager
      .status(user)
      .filter((status) => (named === undefined || named.has(status.name)) && (status.state === "idle" || status.state === "connecting") && this.manager.knownTools(status.name, user) === undefined);
    if (waiting.length === 0) return;
    // The servers one program names connect together, one attempt each, so a program waits at most
    // about one connect timeout before it is built; `complete` keeps the default pace and retries.
    await this.manager.connectAll({ servers: waiting.map((status) => status.name), ...(named ? { concurrency: waiting.length, once: true } : {}), ...(user !== undefined ? { user } : {}) });
  }
}
