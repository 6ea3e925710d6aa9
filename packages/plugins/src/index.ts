// Public API of @thinktank/plugins: what other packages and apps use, and what docs/plugins.md
// documents. Every export is listed here by name.
export { loadPlugin, describeProblem } from "./load-plugin.js";
export { pluginNamePattern } from "./manifest/plugin-name.js";
export { readMarketplace } from "./marketplace/read-marketplace.js";
export type { Marketplace, MarketplaceEntry } from "./marketplace/read-marketplace.js";
export type { PluginSourceResolver, PluginSourceResolvers } from "./marketplace/plugin-source-resolvers.js";
export type { MarketplaceView } from "./marketplace/marketplace-registry.js";
export { PluginInstaller } from "./install/plugin-installer.js";
export { SlashCommands } from "./commands/slash-commands.js";
export type { SlashCommandResolution } from "./commands/slash-commands.js";
export { PluginSnapshotter } from "./snapshot/plugin-snapshotter.js";
export type { PluginSnapshot } from "./snapshot/plugin-snapshotter.js";
export { PluginManager } from "./service/plugin-manager.js";
export { pluginManagerFromConfig } from "./service/plugin-manager-from-config.js";
export type { PluginInstallView } from "./service/plugin-manager.js";
export type { PluginDetailView, PluginSummaryView } from "./service/plugin-views.js";
export { listPluginHooks, hooksInSandbox, hookBackendAvailability } from "./service/hook-listing.js";
export type { PluginHookView, RuntimeAvailability } from "./service/hook-listing.js";
export type { PluginHostPrograms } from "./servers/merge-plugin-servers.js";
export { PluginHooks, defaultHookTimeoutSeconds } from "./hooks/plugin-hooks.js";
export type { HookProblem, PluginHooksOptions } from "./hooks/plugin-hooks.js";
export { HookSession } from "./hooks/hook-session.js";
export type { HookSessionOptions, HookRunOptions, HookEventResult, HookContext, HookLogger } from "./hooks/hook-session.js";
export { hookEvents } from "./hooks/hook-types.js";
export type { HookEventName, HookCommand, HookCommandRunner, HookCommandRequest, HookCommandResult, HookRunRecord, HookOutcomeKind } from "./hooks/hook-types.js";
export type { HookToolCall } from "./hooks/claude-tool-input.js";
export { interpretHookResult } from "./hooks/interpret-hook-result.js";
export { compileHookMatcher } from "./hooks/hook-matcher.js";
