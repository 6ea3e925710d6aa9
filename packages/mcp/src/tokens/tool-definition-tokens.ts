import type { CatalogServer, CatalogTool } from "../catalog/catalog-types.js";
import { countTokens } from "./count-tokens.js";

/**
 * How a tool definition is measured.
 * - "parts": tokens of the name + the description + `JSON.stringify(inputSchema)`, counted
 *   separately and added (the corpus catalog's README measures this way, so figures compare).
 * - "json": tokens of the definition as a model API receives it,
 *   `JSON.stringify({ name, description, input_schema })` (with `output_schema` when included).
 */
export type ToolTokenFormat = "parts" | "json";

export interface ToolTokenOptions {
  /** @default "parts" */
  readonly format?: ToolTokenFormat;
  /** Count the outputSchema too (direct mode sends it to models that take it). @default false */
  readonly includeOutputSchema?: boolean;
}

/** Tokens one tool definition costs in a prompt. */
export function toolDefinitionTokens(tool: CatalogTool, options: ToolTokenOptions = {}): number {
  const withOutput = options.includeOutputSchema === true && tool.outputSchema !== undefined;
  if ((options.format ?? "parts") === "json") {
    const definition: Record<string, unknown> = { name: tool.name, description: tool.description ?? "", input_schema: tool.inputSchema };
    if (withOutput) definition.output_schema = tool.outputSchema;
    return countTokens(JSON.stringify(definition));
  }
  let tokens = countTokens(tool.name) + countTokens(tool.description ?? "") + countTokens(JSON.stringify(tool.inputSchema));
  if (withOutput) tokens += countTokens(JSON.stringify(tool.outputSchema));
  return tokens;
}

export interface ServerTokenCount {
  readonly server: string;
  readonly tools: number;
  readonly tokens: number;
}

export interface CatalogTokenCount {
  readonly servers: readonly ServerTokenCount[];
  readonly tools: number;
  /** What sending every tool definition (direct mode) costs per request. */
  readonly tokens: number;
}

/** Tokens of every tool definition of a catalog, per server and in total: the direct-mode cost. */
export function catalogDefinitionTokens(servers: readonly CatalogServer[], options: ToolTokenOptions = {}): CatalogTokenCount {
  const perServer = servers.map((server) => ({
    server: server.server,
    tools: server.tools.length,
    tokens: server.tools.reduce((sum, tool) => sum + toolDefinitionTokens(tool, options), 0),
  }));
  return {
    servers: perServer,
    tools: perServer.reduce((sum, server) => sum + server.tools, 0),
    tokens: perServer.reduce((sum, server) => sum + server.tokens, 0),
  };
}
