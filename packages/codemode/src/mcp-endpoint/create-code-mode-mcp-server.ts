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

/**
 * An MCP server (SDK McpServer) exposing list_servers, search_tools and execute_code over a
 * CodeMode, with the same definitions the agent's model sees. Results are JSON text, and also
 * structuredContent; failures are tool errors (isError) with the code and message.
 */
export function createCodeModeMcpServer(codeMode: CodeMode, options: CodeModeMcpServerOptions): McpServer {
  const server = new McpServer(options.serverInfo ?? { name: "thinktank", version: "0.1.0" }, {
    instructions:
      "Thinktank code mode: find tools with list_servers and search_tools, then call them from a short program with execute_code; only what the program prints comes back.",
  });
  const specs = codeModeToolSpecs(codeMode.toolSettings());
  server.registerTool(specs.listServers.name, { description: specs.listServers.description, inputSchema: specs.listServers.shape, annotations: { readOnlyHint: true } }, () =>
    answer(() => ({ servers: codeMode.listServers(options.place.userId, options.place.servers) })),
  );
  server.registerTool(specs.searchTools.name, { description: specs.searchTools.description, inputSchema: specs.searchTools.shape, annotations: { readOnlyHint: true } }, (input) =>
    answer(async () => ({ tools: await codeMode.searchTools(searchInput(input), options.place.userId, options.place.servers) })),
  );
  server.registerTool(
    specs.executeCode.name,
    { description: specs.executeCode.description, inputSchema: specs.executeCode.shape, annotations: { openWorldHint: true } },
    async (input, extra) => {
      const result = await codeMode.executeCode(executeInput(input), { ...options.place, signal: extra.signal });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: { ...result }, isError: result.error !== undefined || result.exit_code !== 0 };
    },
  );
  return server;
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
