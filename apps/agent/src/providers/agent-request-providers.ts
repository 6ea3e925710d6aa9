import { createRequestHumanInputTool } from "../graph/request-human-input-tool.js";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { createCodeModeProvider } from "./code-mode-provider.js";
import { createCommandsProvider } from "./commands-provider.js";
import { createSkillsProvider } from "./skills-provider.js";
import { createUniversalToolsProvider } from "./universal-tools-provider.js";

/** request_human_input: a LangGraph interrupt (see createRequestHumanInputTool). */
export const humanInputProvider: RequestProvider = { name: "human-input", contribute: () => ({ tools: [createRequestHumanInputTool()] }) };

/**
 * The agent's request providers, in prompt and tool order: universal tools (files, bash), skills
 * (`<skill_system>`, view_skill, specialist contexts), slash commands, request_human_input, the
 * MCP surface (direct or code mode), then `extra` (e.g. the registered script tools and built-ins
 * of @thinktank/tools). A name already taken keeps its first tool, so `extra` cannot replace these.
 */
export function agentRequestProviders(runtime: AgentRuntime, extra: readonly RequestProvider[] = []): RequestProvider[] {
  return [createUniversalToolsProvider(runtime), createSkillsProvider(runtime), createCommandsProvider(runtime), humanInputProvider, createCodeModeProvider(runtime), ...extra];
}
