import type { ToolSurfaceChoice } from "@thinktank/codemode";
import type { ServerStatus } from "@thinktank/mcp";
import { askUserForMcpInput } from "../graph/mcp-input-interrupt.js";
import type { PromptSection } from "../request/request-context.js";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";

/**
 * The MCP part of the tool surface, per config.code_execution.mode (codemode's chooseToolSurface):
 * direct, every MCP tool of the configured and plugin servers; code, list_servers / search_tools /
 * execute_code and the code-execution section (order 30); auto, code mode above the token
 * threshold. Specialist contexts inherit code mode's tools and section, not direct-mode MCP tools
 * (a skill names the MCP tools it needs in tools.json). Servers that need sign-in offer no tools;
 * a short section names them, so the model can tell the user instead of looking for their tools.
 * All of it as the run's owner sees it: their sign-ins, their sessions, their own servers.
 */
export function createCodeModeProvider(runtime: AgentRuntime, options: { onChoice?: (choice: ToolSurfaceChoice) => void } = {}): RequestProvider {
  return {
    name: "code-mode",
    async contribute(request) {
      await runtime.snapshotFor(request);
      // As the run's owner: their MCP sessions and sign-ins, and their own servers.
      // An assistant's MCP servers and code_execution.mode, when it sets them.
      const assistant = request.assistant;
      const mode = assistant?.settings.code_execution?.mode;
      const choice = await runtime.codeMode.surface(
        { threadId: request.threadId, ...(request.ownerId !== undefined ? { userId: request.ownerId } : {}), ...(assistant?.servers ? { servers: assistant.servers } : {}) },
        // A 2026-07-28 tool asking for input pauses the run as request_human_input does: in direct mode, and in execute_code's programs (replayed on resume).
        { ...(mode ? { mode } : {}), onInputRequired: askUserForMcpInput },
      );
      options.onChoice?.(choice);
      const signIn = signInSection(runtime.codeMode.manager.status(request.ownerId).filter((status) => !assistant?.servers || assistant.servers(status.name)));
      const sections = [...choice.sections.map((section) => ({ ...section, inherit: true })), ...(signIn ? [signIn] : [])];
      return { tools: choice.tools, sections, inheritTools: choice.mode === "code" };
    },
  };
}

/** The servers waiting for a sign-in, for the model (absent when there are none). */
function signInSection(statuses: readonly ServerStatus[]): PromptSection | undefined {
  const waiting = statuses.filter((status) => status.state === "needs_auth").map((status) => status.name);
  if (waiting.length === 0) return undefined;
  return {
    id: "mcp-sign-in",
    order: 31,
    inherit: true,
    text: `<mcp_sign_in>\nThese MCP servers need the user to sign in before their tools can be used: ${waiting.join(", ")}. Their tools are not available now. If the user asks for something they provide, say which server needs sign-in (in the app's MCP settings, or \`thinktank mcp login <server>\`) rather than searching for its tools.\n</mcp_sign_in>`,
  };
}
