/** The code API's languages. */
export type CodeApiLanguage = "typescript" | "python";

/** One tool as the generator reads it: an MCP Tool object (the catalog's `CatalogTool` fits). */
export interface CodegenTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** One server and its tools (the catalog's `CatalogServer` fits). */
export interface CodegenServer {
  readonly server: string;
  readonly tools: readonly CodegenTool[];
}

/** Something the generator chose to type loosely (an unresolved `$ref`, say), and where. */
export interface CodegenWarning {
  readonly server: string;
  readonly tool: string;
  readonly message: string;
}
