import { ThinktankError } from "@thinktank/core";
import { readCachedToolList } from "../catalog/cached-tool-list.js";
import type { CachedToolList } from "../catalog/cached-tool-list.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import { removeCatalogFile, writeCatalogFile } from "../catalog/write-catalog-file.js";
import { entryHash, stableStringify } from "../servers/config-hash.js";
import type { McpServerEntry, McpTransportKind } from "../servers/server-entry.js";
import type { ManagerLogger, McpSettings, ToolsChangedEvent } from "./manager-types.js";
import type { EraVerdict } from "./protocol-era.js";
import type { ServerConnection } from "./server-connection.js";

/** What a server's tool list needs from its ManagedServer and manager. */
export interface ServerToolListContext {
  readonly server: string;
  readonly transport: McpTransportKind | undefined;
  /** The server's current entry (its description may change without a new session). */
  readonly entry: () => McpServerEntry;
  readonly settings: McpSettings;
  readonly logger: ManagerLogger;
  readonly now: () => number;
  readonly writeCatalog: boolean;
  /** Offer the disk cache before the first live list. @default true */
  readonly readCache?: boolean;
  readonly emitToolsChanged: (event: ToolsChangedEvent) => void;
  readonly track: (work: Promise<unknown>) => void;
}

/**
 * One server's tools: the live list from its session, the disk cache written for this very
 * entry (read once), re-listing after `notifications/tools/list_changed` (a notification during
 * a refresh causes one more), and a tools-changed event whenever the known list differs.
 */
export class ServerToolList {
  private tools: CatalogTool[] | undefined;
  private names = new Set<string>();
  /** null: not read yet. */
  private cache: CachedToolList | undefined | null = null;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private closed = false;
  /** When the live list goes stale (a 2026-07-28 list's ttlMs after it was fetched); undefined: it does not (a 2025-era list). */
  private freshUntil: number | undefined;
  /** What the server speaks, as last recorded with the list (written to the disk cache with it). */
  private verdict: EraVerdict | undefined;

  constructor(private readonly context: ServerToolListContext) {}

  /** The list from the live session, once connected. */
  get live(): readonly CatalogTool[] | undefined {
    return this.tools;
  }

  /** The live list, else the cached one when it matches this entry. */
  known(): readonly CatalogTool[] | undefined {
    return this.tools ?? this.cached()?.tools;
  }

  /**
   * Whether the known list is past its ttlMs (2026-07-28 cacheable lists: the live one, else the
   * disk cache's, from its fetchedAt). A 2025-era list never goes stale this way: it follows
   * notifications/tools/list_changed and the entry. A stale list is still offered while it is asked for again.
   */
  stale(now: number): boolean {
    if (this.refreshing) return false;
    if (this.tools) return this.freshUntil !== undefined && now >= this.freshUntil;
    const cached = this.cached();
    if (cached?.ttlMs === undefined) return false;
    const fetched = Date.parse(cached.fetchedAt);
    return !Number.isFinite(fetched) || now >= fetched + cached.ttlMs;
  }

  /** What the server was last found to speak: recorded with the live list, else with the disk cache for this entry. */
  cachedVerdict(): EraVerdict | undefined {
    return this.verdict ?? this.cached()?.verdict;
  }

  forgetVerdict(): void {
    this.verdict = undefined;
    if (this.cache) this.cache = { ...this.cache, verdict: undefined };
  }

  /** Calls to a tool the server does not list fail clearly; the list is refreshed once first in case it is stale. */
  async require(connection: ServerConnection, tool: string): Promise<void> {
    if (this.names.has(tool)) return;
    await this.accept(await connection.listAllTools(this.context.settings.connect_timeout_ms), "list_changed", { ttlMs: connection.toolListTtlMs });
    if (this.names.has(tool)) return;
    throw new ThinktankError("MCP_TOOL_NOT_FOUND", `MCP server '${this.context.server}' has no tool '${tool}'`, { details: { server: this.context.server, tool } });
  }

  /** Re-lists tools on the session `current()` answers, unless it is gone by then. */
  refresh(current: () => ServerConnection | undefined): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    const work = (async () => {
      do {
        this.refreshAgain = false;
        const connection = current();
        if (!connection?.alive || this.closed) return;
        try {
          await this.accept(await connection.listAllTools(this.context.settings.connect_timeout_ms), "list_changed", { ttlMs: connection.toolListTtlMs });
        } catch (error) {
          this.context.logger.warn({ server: this.context.server, err: String(error) }, "mcp tool list refresh failed");
        }
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
    this.refreshing = work;
    this.context.track(work);
  }

  /**
   * Records a fresh tool list: writes the disk cache and tells listeners when it differs from the
   * last known one. `ttlMs`: how long it stays fresh (a 2026-07-28 list); `verdict`: what the
   * server speaks, kept with it (else the one known before).
   */
  async accept(tools: CatalogTool[], cause: ToolsChangedEvent["cause"], fetched: { readonly ttlMs?: number | undefined; readonly verdict?: EraVerdict | undefined } = {}): Promise<void> {
    if (this.closed) return;
    const previous = this.known();
    this.freshUntil = fetched.ttlMs === undefined ? undefined : this.context.now() + fetched.ttlMs;
    if (fetched.verdict) this.verdict = fetched.verdict;
    this.tools = tools;
    this.names = new Set(tools.map((tool) => tool.name));
    const changed = previous === undefined || stableStringify(previous) !== stableStringify(tools);
    if (this.context.writeCatalog) {
      const list: CachedToolList = {
        server: this.context.server,
        tools,
        configHash: entryHash(this.context.entry()),
        fetchedAt: new Date(this.context.now()).toISOString(),
        transport: this.context.transport ?? "unknown",
        ...(fetched.ttlMs !== undefined ? { ttlMs: fetched.ttlMs } : {}),
        ...(this.verdict ? { verdict: this.verdict } : {}),
      };
      try {
        await writeCatalogFile(this.context.settings.catalog_dir, list);
        this.cache = list;
      } catch (error) {
        this.context.logger.warn({ server: this.context.server, err: String(error) }, "mcp could not write the cached tool list");
      }
    }
    if (changed) this.context.emitToolsChanged({ server: this.context.server, tools, cause });
  }

  /** Waits for a refresh under way, if any. */
  async settled(): Promise<void> {
    while (this.refreshing) await this.refreshing;
  }

  /** No more updates; `removed` also deletes the cached list and tells listeners the tools are gone. */
  async close(removed: boolean): Promise<void> {
    this.closed = true;
    await this.refreshing;
    if (!removed) return;
    if (this.context.writeCatalog) await removeCatalogFile(this.context.settings.catalog_dir, this.context.server).catch(() => undefined);
    this.context.emitToolsChanged({ server: this.context.server, tools: [], cause: "removed" });
  }

  /** The cached list on disk, when it was written for this very entry (read once). */
  private cached(): CachedToolList | undefined {
    if (this.cache === null) {
      const cached = this.context.readCache === false ? undefined : readCachedToolList(this.context.settings.catalog_dir, this.context.server);
      this.cache = cached && cached.configHash === entryHash(this.context.entry()) ? cached : undefined;
    }
    return this.cache;
  }
}
