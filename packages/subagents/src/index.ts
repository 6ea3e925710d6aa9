// Public API of @thinktank/subagents: what other packages and apps use, and what README.md documents.

export type { AgentDefinition, AgentProblem, AgentSource, ParsedAgent } from "./agent-types.js";
export type { AgentsSnapshot, AgentSettingsDocument, AgentSettingsReader, AgentPlugin } from "./agents-snapshot.js";
export { parseAgent, isUsableName } from "./parse-agent.js";
export type { ParseAgentResult, AgentRefusalCode } from "./parse-agent.js";
export { readAgentFile, maxAgentFileBytes } from "./read-agent-file.js";
export type { ReadAgentFileOptions } from "./read-agent-file.js";
export { builtinAgents } from "./builtin-agents.js";
export { findAgent } from "./find-agent.js";
export type { FindAgentOptions } from "./find-agent.js";
export { readAgentPrompt } from "./read-agent-prompt.js";
export { AgentsSnapshotter } from "./agents-snapshotter.js";
export type { AgentsSnapshotterOptions } from "./agents-snapshotter.js";
export { UserAgentViews } from "./user-agent-views.js";
export type { UserAgentViewsOptions } from "./user-agent-views.js";
export { customAgentsFolder, userAgentsFolder } from "./agent-sources.js";
export { AgentsService } from "./agents-service.js";
export type { AgentsServiceOptions, AgentSettingsStore, AgentViewer, InstalledAgent } from "./agents-service.js";
export { installAgents } from "./install-agents.js";
export type { AgentPackageSource, InstallAgentsOptions, InstalledAgentFile } from "./install-agents.js";
export { toAgentJson, toAgentDetailJson, agentJsonSchema, agentDetailJsonSchema, agentProblemJsonSchema } from "./agent-json.js";
export type { AgentJson, AgentDetailJson } from "./agent-json.js";
export { agentModelName } from "./agent-model.js";
export { DelegationLimits, type DelegationAdmission, type DelegationLimitsOptions } from "./delegation-limits.js";
