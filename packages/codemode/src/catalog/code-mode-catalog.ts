import fs from "node:fs";
import { buildCodeApiIndex, generateCodeApi, type CodeApiIndex } from "@thinktank/codegen";
import { ToolSearchIndex, type CatalogServer, type CatalogTool, type ManagerLogger } from "@thinktank/mcp";
import type { ToolInvoker } from "../invoker/tool-invoker.js";

export interface CodeModeCatalogOptions {
  /** The tool sources, in priority order: the first that names a server owns it. */
  readonly invokers: readonly ToolInvoker[];
  /** config.code_execution.code_api_dir. */
  readonly codeApiDir: string;
  /** Where the sandbox mounts the code API. @default "/mnt/code-api" */
  readonly mountPath?: string;
  /** config.search.default_limit / max_limit. */
  readonly defaultLimit: number;
  readonly maxLimit: number;
  /** Generate the code API when tool lists change. @default true */
  readonly generate?: boolean;
  readonly logger: ManagerLogger;
}

/**
 * What code mode knows about the enabled servers' tools, kept in step with the tool sources:
 * the search index, the code API on disk (regenerated when a tool list changes, not per call;
 * generation is incremental, so unchanged servers are not rewritten), the wrapper names, and the
 * direct-mode token cost. `refresh()` is cheap when nothing changed: one identity check per server.
 */
export class CodeModeCatalog {
  readonly search: ToolSearchIndex;
  private readonly lists = new Map<string, { invoker: ToolInvoker; tools: readonly CatalogTool[] | undefined }>();
  private servers: CatalogServer[] = [];
  private names: CodeApiIndex | undefined;
  private readonly memo = new Map<string, unknown>();
  private generatedFor: CatalogServer[] | undefined;
  private generation: Promise<void> | undefined;
  private lastGenerationError: string | undefined;
  private readonly mountPath: string;
  /** Server names two tool sources claim, already logged (once each). */
  private readonly shadowed = new Set<string>();

  constructor(private readonly options: CodeModeCatalogOptions) {
    this.mountPath = options.mountPath ?? "/mnt/code-api";
    this.search = new ToolSearchIndex({
      defaultLimit: options.defaultLimit,
      maxLimit: options.maxLimit,
      wrapperPath: (server, tool) => this.codeApiIndex().find(server, tool)?.wrapperPath ?? `${this.mountPath}/servers/${server}/${tool}.ts`,
    });
  }

  /** The invoker that owns a server (enabled servers only). */
  invokerFor(server: string): ToolInvoker | undefined {
    return this.lists.get(server)?.invoker;
  }

  /** Every enabled server, sorted. */
  serverNames(): string[] {
    return [...this.lists.keys()].sort();
  }

  /** Servers whose tools are known, as catalog entries (for search, codegen and token counts). */
  catalog(): readonly CatalogServer[] {
    return this.servers;
  }

  /** Re-reads the tool sources; answers whether any server's tool list changed. */
  refresh(): boolean {
    const seen = new Map<string, { invoker: ToolInvoker; tools: readonly CatalogTool[] | undefined }>();
    for (const invoker of this.options.invokers) {
      for (const server of invoker.serverNames()) {
        if (!seen.has(server)) seen.set(server, { invoker, tools: invoker.knownTools(server) });
        else if (seen.get(server)?.invoker !== invoker) this.warnShadowed(server);
      }
    }
    let changed = seen.size !== this.lists.size;
    for (const [server, entry] of seen) {
      const previous = this.lists.get(server);
      if (!previous || previous.tools !== entry.tools || previous.invoker !== entry.invoker) changed = true;
    }
    if (!changed) return false;
    this.lists.clear();
    for (const [server, entry] of seen) this.lists.set(server, entry);
    this.servers = [...seen]
      .filter(([, entry]) => entry.tools !== undefined)
      .map(([server, entry]) => ({ server, tools: entry.tools as readonly CatalogTool[] }))
      .sort((a, b) => (a.server < b.server ? -1 : 1));
    this.names = undefined;
    this.memo.clear();
    this.search.syncServers(this.servers);
    if (this.options.generate !== false) this.scheduleGeneration();
    return true;
  }

  /** Two sources name one server (an MCP server called like the registered tools' `tools`): the first wins, and the log says so once. */
  private warnShadowed(server: string): void {
    if (this.shadowed.has(server)) return;
    this.shadowed.add(server);
    this.options.logger.warn(
      { server },
      `two tool sources name a server '${server}': code mode offers the first (the MCP server) and hides the other's tools; rename the MCP server to reach both`,
    );
  }

  /** Names and paths of every tool's wrappers (the same as the generator's). */
  codeApiIndex(): CodeApiIndex {
    this.names ??= buildCodeApiIndex(this.servers, { mountPath: this.mountPath });
    return this.names;
  }

  /** A value computed from the catalog, kept until a tool list changes (token counts, say). */
  derived<T>(key: string, compute: (servers: readonly CatalogServer[]) => T): T {
    if (!this.memo.has(key)) this.memo.set(key, compute(this.servers));
    return this.memo.get(key) as T;
  }

  /** Resolves once the code API on disk matches the known tool lists; the message of the last failed generation, if it failed. */
  async codeApiReady(): Promise<string | undefined> {
    this.refresh();
    fs.mkdirSync(this.options.codeApiDir, { recursive: true });
    if (this.options.generate === false) return undefined;
    // Also retries a generation that failed before.
    if (this.generatedFor !== this.servers) this.scheduleGeneration();
    while (this.generation) await this.generation;
    return this.generatedFor === this.servers ? undefined : this.lastGenerationError;
  }

  private scheduleGeneration(): void {
    if (this.generation) return; // the running generation loops until it has caught up
    this.generation = (async () => {
      try {
        while (this.generatedFor !== this.servers) {
          const target = this.servers;
          try {
            const result = await generateCodeApi({ servers: target, outDir: this.options.codeApiDir, mountPath: this.mountPath });
            this.generatedFor = target;
            this.lastGenerationError = undefined;
            if (result.generated.length > 0 || result.removed.length > 0) {
              this.options.logger.info({ generated: result.generated, removed: result.removed, ms: Math.round(result.durationMs) }, "code API regenerated");
            }
          } catch (error) {
            this.lastGenerationError = `the code API could not be generated: ${(error as Error).message}`;
            this.options.logger.error({ err: String(error) }, "code API generation failed");
            if (this.servers === target) break;
          }
        }
      } finally {
        this.generation = undefined;
      }
    })();
  }
}
