// Public API of @thinktank/sandbox: every export is listed here by name (the README's export table says what each is for).
export { createSandboxExecutor } from "./executor/sandbox-executor.js";
export type { SandboxExecutorOptions } from "./executor/sandbox-executor-options.js";
export type { SandboxExecutor, SandboxRequest, SandboxResult, SandboxLanguage, SandboxBackendInfo, SandboxNetworkConnection } from "./sandbox-types.js";
export { backendLine } from "./executor/select-launcher.js";
export { checkSandbox } from "./executor/check-sandbox.js";
export { createSandboxScriptRunner } from "./scripts/sandbox-script-runner.js";
export type { SandboxScriptRunner, SandboxScriptRunnerOptions, SandboxScriptCall, SandboxScriptOutcome } from "./scripts/sandbox-script-runner.js";
export { sandboxPaths } from "./sandbox-paths.js";
export { EgressProxy } from "./network/egress-proxy.js";
export type { EgressSession } from "./network/egress-session.js";
export type { EgressPolicy, EgressProxyOptions, EgressResolver } from "./network/egress-types.js";
export type { SandboxLogger } from "./network/run-egress.js";
export { threadWorkspacePath } from "./workspaces/thread-workspace.js";
export { VirtualFileSystem } from "./workspaces/virtual-file-system.js";
export type { ThreadFolders } from "./workspaces/virtual-file-system.js";
export { FileOperations } from "./workspaces/file-operations.js";
export type { FileOperationsOptions } from "./workspaces/file-operations.js";
