// Public API of @thinktank/agent: every export is listed here by name.
export { buildAgentServer, defaultRequestProviders } from "./server/build-agent-server.js";
export type { AgentServer, AgentServerDeps } from "./server/build-agent-server.js";
export { startAgentServer } from "./start-agent-server.js";
export type { StartAgentServerOptions, StartResult } from "./start-agent-server.js";
export { prepareRequest, rolePrompt } from "./request/prepare-request.js";
export type { PrepareRequestOptions } from "./request/prepare-request.js";
export type { RequestContext, RequestInfo, RequestProvider, RequestContribution, PromptSection, ToolSurface } from "./request/request-context.js";
export { buildLeadAgentGraph, leadAgentGraphId } from "./graph/build-lead-agent-graph.js";
export type { LeadAgentGraph } from "./graph/build-lead-agent-graph.js";
export { LeadAgentState } from "./graph/lead-agent-state.js";
export type { LeadAgentStateType } from "./graph/lead-agent-state.js";
export { createRequestHumanInputTool } from "./graph/request-human-input-tool.js";
export { openAgentStore, openSqliteStore } from "./persistence/open-agent-store.js";
export type { AgentStore } from "./persistence/open-agent-store.js";
export type { MetadataStore } from "./persistence/metadata-store.js";
export { leadAssistantId } from "./assistants/lead-assistant.js";
