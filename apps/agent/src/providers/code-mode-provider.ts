import type { ToolSurfaceChoice } from "@thinktank/codemode";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

/**
 * The MCP part of the tool surface, per config.code_execution.mode (codemode's chooseToolSurface):
 * direct, every MCP tool of the configured and plugin servers; code, list_servers / search_tools /
 * execute_code and the code-execution section (order 30); auto, code mode above the token
 * threshold. Specialist contexts inherit code mode's tools and section, not direct-mode MCP tools
 * (a skill names the MCP tools it needs in tools.json).
 */
export function createCodeModeProvider(runtime: AgentRuntime, options: { onChoice?: (choice: ToolSurfaceChoice) => void } = {}): RequestProvider {
  return {
    name: "code-mode",
    async contribute(request) {
      await runtime.snapshotFor(request);
      const choice = await runtime.codeMode.surface({ threadId: request.threadId });
      options.onChoice?.(choice);
      return { tools: choice.tools, sections: choice.sections.map((section) => ({ ...section, inherit: true })), inheritTools: choice.mode === "code" };
    },
  };
}
