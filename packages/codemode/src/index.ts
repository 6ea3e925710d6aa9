// Public API of @thinktank/codemode: what other packages, apps and bench/ use, and what README.md
// documents (the ToolInvoker seam for other tool sources). Everything else is internal to the package.
export { CodeMode } from "./code-mode.js";
export type { CodeModeOptions } from "./code-mode.js";
export { codeLanguages } from "./code-mode-types.js";
export type { CodeLanguage, ExecuteCodeResult, ExecutionAsk, ExecutionPlace } from "./code-mode-types.js";
export type { ReplaySummary } from "./replay/call-replay.js";
export type { ToolInvoker, ToolCallResult, ToolInvocationOptions } from "./invoker/tool-invoker.js";
export { McpToolInvoker } from "./invoker/mcp-tool-invoker.js";
export type { ToolDefinition } from "./surface/code-mode-tool-specs.js";
export { describeToolSurface, codeDefinitions } from "./surface/describe-tool-surface.js";
export type { ToolSurfaceDescription } from "./surface/describe-tool-surface.js";
export { createCodeModeTools } from "./surface/create-code-mode-tools.js";
export type { ToolSurfaceChoice } from "./surface/choose-tool-surface.js";
export { CodeModeRuntime } from "./runtime/code-mode-runtime.js";
export type { ServerEntriesSource } from "./runtime/server-entries-source.js";
