// Public API of @thinktank/agent: every export is listed here by name.
export { buildAgentServer } from "./server/build-agent-server.js";
export type { AgentServer, AgentServerDeps } from "./server/build-agent-server.js";
export { startAgentServer } from "./start-agent-server.js";
export type { StartAgentServerOptions, StartResult } from "./start-agent-server.js";
export { prepareRequest, assembleRequest, joinSections, rolePrompt } from "./request/prepare-request.js";
export type { PrepareRequestOptions } from "./request/prepare-request.js";
export { environmentSection } from "./request/environment-section.js";
export { threadFolders } from "@thinktank/files";
export type {
  RequestContext,
  RequestSurface,
  RequestInfo,
  RequestProvider,
  RequestContribution,
  PromptSection,
  ToolSurface,
  InheritedSurface,
  ThreadFolders,
} from "./request/request-context.js";
export { AgentRuntime } from "./runtime/agent-runtime.js";
export type { AgentRuntimeOptions, AgentSnapshot } from "./runtime/agent-runtime.js";
export { runtimeServerEntries } from "./runtime/runtime-server-entries.js";
export { agentRequestProviders, humanInputProvider } from "./providers/agent-request-providers.js";
export type { AgentRequestProvidersOptions } from "./providers/agent-request-providers.js";
export { createSkillsProvider } from "./providers/skills-provider.js";
export { createCommandsProvider } from "./providers/commands-provider.js";
export { createUniversalToolsProvider } from "./providers/universal-tools-provider.js";
export { createCodeModeProvider } from "./providers/code-mode-provider.js";
export { createViewSkillTool, createLeaveSkillTool, stateEffectOf } from "./skill-context/skill-switch-tools.js";
export type { StateEffect } from "./skill-context/skill-switch-tools.js";
export { buildLeadAgentGraph, leadAgentGraphId, slashCommandKey } from "./graph/build-lead-agent-graph.js";
export type { LeadAgentGraph } from "./graph/build-lead-agent-graph.js";
export { LeadAgentState } from "./graph/lead-agent-state.js";
export type { LeadAgentStateType } from "./graph/lead-agent-state.js";
export { createRequestHumanInputTool } from "./graph/request-human-input-tool.js";
export { openAgentStore } from "./persistence/open-agent-store.js";
export type { AgentStore } from "./persistence/open-agent-store.js";
export { leadAssistantId } from "./assistants/lead-assistant.js";
export { inspectPrompt, openPromptInspector } from "./inspect/inspect-prompt.js";
export type { InspectPromptOptions, PromptInspection, PromptInspector } from "./inspect/inspect-prompt.js";
export type { AgentPromptInspection } from "./inspect/inspect-agent-prompt.js";
export { toolDefinition } from "./inspect/tool-definition.js";
export { catalogSurfaceProvider } from "./inspect/catalog-surface-provider.js";
