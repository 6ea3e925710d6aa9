import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { createCodeModeTools, describeToolSurface, type ToolSurfaceDescription } from "@thinktank/codemode";
import type { CatalogServer } from "@thinktank/mcp";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

/**
 * The MCP part of the surface from a catalog folder instead of live servers (`inspect prompt
 * --catalog DIR`): the same choice and definitions describeToolSurface gives chooseToolSurface,
 * code mode's real tools, and, in direct mode, tools that carry the catalog's definitions (they
 * are shown, never called).
 */
export function catalogSurfaceProvider(runtime: AgentRuntime, servers: readonly CatalogServer[], onDescription: (description: ToolSurfaceDescription) => void): RequestProvider {
  return {
    name: "code-mode",
    contribute(request) {
      const { auto_threshold_tokens: autoThresholdTokens } = runtime.config.code_execution;
      // The run's assistant: its MCP servers and code_execution.mode, as the live provider takes them.
      const assistant = request.assistant;
      const mode = assistant?.settings.code_execution?.mode ?? runtime.config.code_execution.mode;
      const allowed = assistant?.servers ? servers.filter((server) => assistant.servers?.(server.server)) : servers;
      const codeMode = runtime.codeMode.codeMode;
      const description = describeToolSurface(allowed, { ...codeMode.toolSettings(), mode, autoThresholdTokens });
      onDescription(description);
      const sections = description.sections.map((section) => ({ ...section, inherit: true }));
      if (description.mode === "code") return { tools: createCodeModeTools(codeMode, { threadId: request.threadId, ...(assistant?.servers ? { servers: assistant.servers } : {}) }), sections, inheritTools: true };
      const tools: StructuredToolInterface[] = description.definitions.map((definition) =>
        tool(
          async () => {
            throw new Error(`${definition.name} comes from a catalog file: it can be inspected, not called`);
          },
          { name: definition.name, description: definition.description, schema: definition.input_schema as Record<string, unknown> },
        ),
      );
      return { tools, sections, inheritTools: false };
    },
  };
}
