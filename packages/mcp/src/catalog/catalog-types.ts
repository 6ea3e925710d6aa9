/** An MCP Tool object as a server lists it (extra fields kept as they came). */
export interface CatalogTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** One server's cached tool list: the catalog format of docs/architecture.md `{ server, tools }`, extra keys kept. */
export interface CatalogServer {
  readonly server: string;
  readonly tools: readonly CatalogTool[];
  readonly [key: string]: unknown;
}

/** A file in a catalog folder that was not in the catalog format, and why. */
export interface CatalogSkip {
  readonly file: string;
  readonly reason: string;
}
