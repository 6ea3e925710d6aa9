import type { ToolDefinition } from "../registry/tool-definition.js";

/** The name registered tools have as a "server" in code mode (list_servers, search_tools, the code API). */
export const registeredToolsServer = "tools";

/** A tool as MCP lists it (the cached tool-list format of docs/architecture.md, "File formats"; @thinktank/mcp's CatalogTool fits). A type, not an interface, so it fits index-signature types. */
export type CatalogToolEntry = {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
};

/** One server's tool list in the catalog format: `{ server, tools }`. */
export type CatalogServerEntry = {
  readonly server: string;
  readonly description: string;
  readonly tools: readonly CatalogToolEntry[];
};

/**
 * The enabled registered tools as one catalog-format server, for code generation, search_tools
 * and `npm run eval:tools`. An output_schema becomes the tool's outputSchema only when it
 * describes an object (MCP's rule for structured content); other outputs are typed loosely.
 */
export function toolsCatalogServer(tools: Iterable<ToolDefinition>, server = registeredToolsServer): CatalogServerEntry {
  const entries: CatalogToolEntry[] = [];
  for (const tool of tools) {
    if (!tool.enabled) continue;
    entries.push({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.input_schema,
      ...(tool.output_schema?.type === "object" ? { outputSchema: tool.output_schema } : {}),
    });
  }
  return { server, description: "Script tools registered on this server (python, node or shell scripts).", tools: entries };
}
