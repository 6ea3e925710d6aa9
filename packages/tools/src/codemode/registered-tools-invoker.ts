import { ThinktankError } from "@thinktank/core";
import type { ToolExecutor } from "../execution/tool-executor.js";
import type { ToolRegistry } from "../registry/tool-registry.js";
import { registeredToolsServer, toolsCatalogServer } from "./tools-catalog-server.js";
import type { CatalogToolEntry } from "./tools-catalog-server.js";

/** An MCP CallToolResult (codemode's ToolCallResult fits). */
export type RegisteredToolCallResult = {
  readonly content: readonly { readonly type: "text"; readonly text: string }[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
};

/** list_servers' view of the server (codemode's ServerSummary fits). */
export interface RegisteredToolsSummary {
  readonly name: string;
  readonly description: string;
  readonly transport: "script";
  readonly status: "connected";
  readonly tool_count: number;
}

export interface RegisteredToolsInvokerOptions {
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  /** The server name code sees. @default "tools" */
  readonly server?: string;
}

/**
 * Registered script tools as one more "server" of code mode: it implements codemode's ToolInvoker
 * seam (structurally, so this package does not depend on codemode), so execute_code programs can
 * chain them with MCP tools through the generated code API and the bridge. The tool list is a
 * snapshot of the registry, refreshed by `discover()` / `listTools()` (codemode calls them before
 * searching and preparing) and kept as the same array while unchanged. A call answers its data as
 * structuredContent (objects) and JSON text; a ToolResponse error becomes `isError` with the code.
 */
export class RegisteredToolsInvoker {
  private readonly server: string;
  private tools: readonly CatalogToolEntry[] = [];
  private revision: string | undefined;
  private readonly listeners = new Set<(server: string) => void>();

  constructor(private readonly options: RegisteredToolsInvokerOptions) {
    this.server = options.server ?? registeredToolsServer;
  }

  /** The server's name while at least one enabled tool is registered (as of the last refresh). */
  serverNames(): readonly string[] {
    return this.tools.length > 0 ? [this.server] : [];
  }

  describe(server: string): RegisteredToolsSummary {
    this.assertServer(server);
    return { name: this.server, description: "Script tools registered on this server", transport: "script", status: "connected", tool_count: this.tools.length };
  }

  knownTools(server: string): readonly CatalogToolEntry[] | undefined {
    return server === this.server ? this.tools : undefined;
  }

  async listTools(server: string): Promise<readonly CatalogToolEntry[]> {
    this.assertServer(server);
    await this.refresh();
    return this.tools;
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options: { readonly signal?: AbortSignal } = {}): Promise<RegisteredToolCallResult> {
    this.assertServer(server);
    const response = await this.options.executor.invoke(tool, args, { source: "code", ...(options.signal ? { signal: options.signal } : {}) });
    if (response.status === "error") {
      return { content: [{ type: "text", text: `${response.error.code}: ${response.error.message}` }], isError: true };
    }
    const data = response.data;
    const structured = data !== null && typeof data === "object" && !Array.isArray(data) ? { structuredContent: data as Record<string, unknown> } : {};
    return { content: [{ type: "text", text: JSON.stringify(data) }], ...structured };
  }

  onToolsChanged(listener: (server: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-reads the registry; codemode calls it before it searches or prepares. */
  async discover(): Promise<void> {
    await this.refresh();
  }

  /** Brings the tool list up to date with the registry; answers whether it changed (listeners are told). */
  async refresh(): Promise<boolean> {
    const view = await this.options.registry.view();
    if (view.etag === this.revision) return false;
    this.revision = view.etag;
    const tools = toolsCatalogServer(view.tools.values(), this.server).tools;
    if (JSON.stringify(tools) === JSON.stringify(this.tools)) return false;
    this.tools = tools;
    for (const listener of this.listeners) listener(this.server);
    return true;
  }

  private assertServer(server: string): void {
    if (server !== this.server) throw new ThinktankError("MCP_SERVER_NOT_FOUND", `no server named '${server}' among the registered tools (they are '${this.server}')`, { details: { server } });
  }
}
