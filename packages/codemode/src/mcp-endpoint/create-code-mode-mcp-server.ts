import { McpServer as ModernMcpServer } from "@modelcontextprotocol/server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isThinktankError } from "@thinktank/core";
import type { CodeMode } from "../code-mode.js";
import type { ExecutionPlace } from "../code-mode-types.js";
import { codeModeToolSpecs } from "../surface/code-mode-tool-specs.js";
import { executeInput, searchInput } from "../surface/tool-inputs.js";

export interface CodeModeMcpServerOptions {
  /** Whose workspace execute_code uses (the /mcp endpoint gives each session its own). */
  readonly place: ExecutionPlace;
  /** How the server introduces itself. @default { name: "thinktank", version: "0.1.0" } */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

const defaultServerInfo = { name: "thinktank", version: "0.1.0" };
const instructions =
  "Thinktank code mode: find tools with list_servers and search_tools, then call them from a short program with execute_code; only what the program prints comes back.";

/**
 * An MCP server (SDK McpServer) exposing list_servers, search_tools and execute_code over a
 * CodeMode, with the same definitions the agent's model sees. Results are JSON text, and also
 * structuredContent; failures are tool errors (isError) with the code and message. The 2025 era
 * (`@modelcontextprotocol/sdk`, one per session).
 */
export function createCodeModeMcpServer(codeMode: CodeMode, options: CodeModeMcpServerOptions): McpServer {
  const server = new McpServer(options.serverInfo ?? defaultServerInfo, { instructions });
  const specs = codeModeToolSpecs(codeMode.toolSettings());
  server.registerTool(specs.listServers.name, { description: specs.listServers.description, inputSchema: specs.listServers.shape, annotations: { readOnlyHint: true } }, () =>
    answer(() => ({ servers: codeMode.listServers(options.place.userId) })),
  );
  server.registerTool(specs.searchTools.name, { description: specs.searchTools.description, inputSchema: specs.searchTools.shape, annotations: { readOnlyHint: true } }, (input) =>
    answer(async () => ({ tools: await codeMode.searchTools(searchInput(input), options.place.userId) })),
  );
  server.registerTool(
    specs.executeCode.name,
    { description: specs.executeCode.description, inputSchema: specs.executeCode.shape, annotations: { openWorldHint: true } },
    async (input, extra) => executed(await codeMode.executeCode(executeInput(input), { ...options.place, signal: extra.signal })),
  );
  return server;
}

/**
 * The same three tools as a `@modelcontextprotocol/server` (v2) McpServer, for the endpoint's
 * 2026-07-28 requests (the v1 SDK cannot serve that era): one instance per request, as that era
 * has no session. The tool list is cacheable for `toolListTtlMs` (its `ttlMs`): the three
 * definitions change only with the configuration's limits.
 */
export function createModernCodeModeMcpServer(codeMode: CodeMode, options: CodeModeMcpServerOptions & { readonly toolListTtlMs?: number }): ModernMcpServer {
  const server = new ModernMcpServer(options.serverInfo ?? defaultServerInfo, {
    instructions,
    capabilities: { tools: {} },
    cacheHints: { "tools/list": { ttlMs: options.toolListTtlMs ?? 60_000, cacheScope: "public" } },
  });
  const specs = codeModeToolSpecs(codeMode.toolSettings());
  server.registerTool(specs.listServers.name, { description: specs.listServers.description, inputSchema: specs.listServers.shape, annotations: { readOnlyHint: true } }, () =>
    answer(() => ({ servers: codeMode.listServers(options.place.userId) })),
  );
  server.registerTool(specs.searchTools.name, { description: specs.searchTools.description, inputSchema: specs.searchTools.shape, annotations: { readOnlyHint: true } }, (input) =>
    answer(async () => ({ tools: await codeMode.searchTools(searchInput(input), options.place.userId) })),
  );
  server.registerTool(
    specs.executeCode.name,
    { description: specs.executeCode.description, inputSchema: specs.executeCode.shape, annotations: { openWorldHint: true } },
    async (input, context) => executed(await codeMode.executeCode(executeInput(input), { ...options.place, signal: context.mcpReq.signal })),
  );
  return server;
}

function executed(result: Awaited<ReturnType<CodeMode["executeCode"]>>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: { ...result }, isError: result.error !== undefined || result.exit_code !== 0 };
}

async function answer(work: () => unknown): Promise<CallToolResult> {
  try {
    const value = (await work()) as Record<string, unknown>;
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    const code = isThinktankError(error) ? error.code : "INTERNAL";
    return { content: [{ type: "text", text: `${code}: ${(error as Error).message}` }], isError: true };
  }
}
