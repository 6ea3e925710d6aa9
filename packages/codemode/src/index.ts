// Public API of @thinktank/codemode: every export is listed here by name.
export { CodeMode, codeApiMountPath } from "./code-mode.js";
export type { CodeModeOptions, CodeModeConfig } from "./code-mode.js";
export { codeLanguages } from "./code-mode-types.js";
export type {
  CodeLanguage,
  ServerSummary,
  SearchToolsInput,
  SearchToolsHit,
  ExecuteCodeInput,
  ExecuteCodeResult,
  ExecutionPlace,
  ToolCallRecord,
} from "./code-mode-types.js";
export type { ToolInvoker, ToolCallResult, ToolInvocationOptions } from "./invoker/tool-invoker.js";
export { McpToolInvoker } from "./invoker/mcp-tool-invoker.js";
export { ToolBridge } from "./bridge/tool-bridge.js";
export type { ToolBridgeOptions, ToolRouter } from "./bridge/tool-bridge.js";
export { ArgumentValidator } from "./bridge/argument-validator.js";
export type { ArgumentValidatorOptions, ArgumentCheck } from "./bridge/argument-validator.js";
export { CodeModeCatalog } from "./catalog/code-mode-catalog.js";
export type { CodeModeCatalogOptions } from "./catalog/code-mode-catalog.js";
export { bundleProgram } from "./execute/bundle-program.js";
export type { BundleProgramOptions, BundleOutcome } from "./execute/bundle-program.js";
export { codeModeToolSpecs, specDefinition } from "./surface/code-mode-tool-specs.js";
export type { CodeModeToolSettings, CodeModeToolSpec, ToolDefinition } from "./surface/code-mode-tool-specs.js";
export { codeExecutionPrompt } from "./surface/code-execution-prompt.js";
export { describeToolSurface, directDefinitions, codeDefinitions, codeSection, definitionTokens } from "./surface/describe-tool-surface.js";
export type { DescribeToolSurfaceOptions, ToolSurfaceDescription, SurfaceSection } from "./surface/describe-tool-surface.js";
export { createCodeModeTools } from "./surface/create-code-mode-tools.js";
export { chooseToolSurface } from "./surface/choose-tool-surface.js";
export type { ChooseToolSurfaceOptions, ToolSurfaceChoice } from "./surface/choose-tool-surface.js";
export { createCodeModeMcpServer } from "./mcp-endpoint/create-code-mode-mcp-server.js";
export type { CodeModeMcpServerOptions } from "./mcp-endpoint/create-code-mode-mcp-server.js";
export { CodeModeMcpEndpoint } from "./mcp-endpoint/code-mode-mcp-endpoint.js";
export type { CodeModeMcpEndpointOptions } from "./mcp-endpoint/code-mode-mcp-endpoint.js";
export { mountCodeModeEndpoint } from "./mcp-endpoint/mount-code-mode-endpoint.js";
export type { MountCodeModeEndpointOptions } from "./mcp-endpoint/mount-code-mode-endpoint.js";
export { CodeModeRuntime } from "./runtime/code-mode-runtime.js";
export type { CodeModeRuntimeOptions } from "./runtime/code-mode-runtime.js";
export { serverEntriesSource } from "./runtime/server-entries-source.js";
export type { ServerEntriesSource } from "./runtime/server-entries-source.js";
