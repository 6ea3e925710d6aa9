// Public API of @thinktank/tools: every export is listed here by name.
export { toolSuccess, toolFailure } from "./tool-response.js";
export type { ToolResponse, ToolError } from "./tool-response.js";
export { toolRuntimes } from "./registry/tool-definition.js";
export type { ToolDefinition, RunnableTool, ToolProblem, ToolRuntime } from "./registry/tool-definition.js";
export { ToolRegistry } from "./registry/tool-registry.js";
export { maskToolDefinition } from "./registry/mask-tool-definition.js";
export type { ToolRegistryOptions, ToolUpload, RegistryView } from "./registry/tool-registry.js";
export { toolNamePattern, builtinToolNames, checkToolName, isValidToolName } from "./registry/tool-names.js";
export {
  registryToolEntrySchema,
  createToolBodySchema,
  createToolDefinitionFieldSchema,
  updateToolBodySchema,
  updateToolDefinitionFieldSchema,
  maxToolTimeoutSeconds,
  scriptFileNamePattern,
} from "./registry/tool-entry-schema.js";
export { SchemaCompiler } from "./registry/schema-compiler.js";
export type { SchemaCompilerOptions } from "./registry/schema-compiler.js";
export { ScriptFiles, scriptExtension, checkScriptSource, defaultMaxScriptBytes } from "./registry/script-files.js";
export { ToolExecutor } from "./execution/tool-executor.js";
export type { ToolExecutorOptions, InvokeOptions } from "./execution/tool-executor.js";
export { ToolScheduler } from "./execution/tool-scheduler.js";
export { InterpreterResolver } from "./execution/interpreters.js";
export type { Interpreter, InterpreterResolverOptions } from "./execution/interpreters.js";
export { defaultScriptPath } from "./execution/script-environment.js";
export { runScript } from "./execution/run-script.js";
export type { RunScriptOptions, ScriptOutcome } from "./execution/run-script.js";
export { ExecutionLog, maxRecentExecutions } from "./log/execution-log.js";
export type { ExecutionLogOptions } from "./log/execution-log.js";
export type { ExecutionRecord, ExecutionEntry } from "./log/execution-record.js";
export { redactArguments } from "./log/redact-arguments.js";
export { WebSearch, maxWebSearchResults } from "./builtins/web-search/web-search.js";
export type { WebSearchOptions } from "./builtins/web-search/web-search.js";
export { createWebSearch, defaultApiKeyVariables } from "./builtins/web-search/create-web-search.js";
export type { CreateWebSearchOptions } from "./builtins/web-search/create-web-search.js";
export { SearxngProvider } from "./builtins/web-search/searxng-provider.js";
export { TavilyProvider, tavilyBaseUrl } from "./builtins/web-search/tavily-provider.js";
export { BraveProvider, braveBaseUrl } from "./builtins/web-search/brave-provider.js";
export type { WebSearchProvider, WebSearchRequest, WebSearchResult, FetchFunction } from "./builtins/web-search/web-search-types.js";
export { createToolsRequestProvider } from "./langchain/tools-request-provider.js";
export type { ToolsRequestProvider, ToolsRequestProviderOptions, ToolsRequestInfo, ToolsContribution, ToolsPromptSection } from "./langchain/tools-request-provider.js";
export { toolsCatalogServer, registeredToolsServer } from "./codemode/tools-catalog-server.js";
export type { CatalogServerEntry, CatalogToolEntry } from "./codemode/tools-catalog-server.js";
export { RegisteredToolsInvoker } from "./codemode/registered-tools-invoker.js";
export type { RegisteredToolsInvokerOptions, RegisteredToolCallResult, RegisteredToolsSummary } from "./codemode/registered-tools-invoker.js";
export { createToolsService, executionLogDir } from "./service/create-tools-service.js";
export type { ToolsService, ToolsServiceOptions, ToolsConfig } from "./service/create-tools-service.js";
