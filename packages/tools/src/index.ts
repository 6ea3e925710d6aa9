// Public API of @thinktank/tools: what other packages and apps use, and what README.md documents.
// Everything else is internal to the package.
export type { ToolResponse } from "./tool-response.js";
export type { ToolDefinition, RunnableTool, ToolRuntime, ToolFolder } from "./registry/tool-definition.js";
export { ToolRegistry } from "./registry/tool-registry.js";
export type { ToolUpload } from "./registry/tool-registry.js";
export { maskToolDefinition } from "./registry/mask-tool-definition.js";
export { toolNamePattern } from "./registry/tool-names.js";
export { registryToolEntrySchema, createToolBodySchema, updateToolBodySchema } from "./registry/tool-entry-schema.js";
export { ToolExecutor } from "./execution/tool-executor.js";
export { InterpreterResolver } from "./execution/interpreters.js";
export type { SandboxedScriptRunner, SandboxedScriptCall, SandboxedScriptOutcome, ScriptNetwork, ScriptNetworkConnection } from "./execution/sandboxed-script-runner.js";
export { ExecutionLog, maxRecentExecutions } from "./log/execution-log.js";
export type { ExecutionRecord, ExecutionEntry, ExecutionNetworkRecord } from "./log/execution-record.js";
export { createToolsRequestProvider } from "./langchain/tools-request-provider.js";
export type { ToolsRequestProvider, ToolsContribution } from "./langchain/tools-request-provider.js";
export { toolsCatalogServer } from "./codemode/tools-catalog-server.js";
export { createToolsService } from "./service/create-tools-service.js";
export type { ToolsService, ToolsConfig } from "./service/create-tools-service.js";
