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
