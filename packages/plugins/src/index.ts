// Public API of @thinktank/plugins: every export is listed here by name.
export { loadPlugin, assertPluginValid, describeProblem } from "./load-plugin.js";
export type { LoadPluginOptions } from "./load-plugin.js";
export type {
  LoadedPlugin,
  PluginManifest,
  PluginAuthor,
  ComponentPaths,
  PluginProblem,
  PluginCommand,
  PluginAgent,
  PluginHook,
  PluginHookHandler,
  PluginSkill,
  PluginServerDefinition,
  PluginServerTransport,
} from "./plugin-types.js";
export { readPluginManifest, manifestFile } from "./manifest/read-plugin-manifest.js";
export type { ManifestReading } from "./manifest/read-plugin-manifest.js";
export { pluginManifestSchema } from "./manifest/plugin-manifest-schema.js";
export { isValidPluginName, pluginNamePattern } from "./manifest/plugin-name.js";
export { readMarketplace } from "./marketplace/read-marketplace.js";
export type { Marketplace, MarketplaceEntry } from "./marketplace/read-marketplace.js";
export { defaultSourceResolvers, resolveRelativeSource, resolveMarketplacePlugin, sourceTypeOf } from "./marketplace/plugin-source-resolvers.js";
export type { PluginSourceResolver, PluginSourceResolvers, ResolvedPluginSource } from "./marketplace/plugin-source-resolvers.js";
export { entryManifest } from "./marketplace/entry-manifest.js";
export { PluginInstaller } from "./install/plugin-installer.js";
export type { PluginInstallerOptions, PluginInstallOptions, PluginInstallResult, PluginInstallSource, PluginInstallRecord, MarketplaceInstallOptions } from "./install/plugin-installer.js";
export { installedPluginsDir } from "./install/plugin-paths.js";
export { mergePluginServers } from "./servers/merge-plugin-servers.js";
export type { MergedPluginServer, PluginServerMerge, PluginServerConflict, PluginServerStatus, MergePluginServersOptions } from "./servers/merge-plugin-servers.js";
export { SlashCommands } from "./commands/slash-commands.js";
export type { SlashCommandEntry, SlashCommandInvocation, SlashCommandResolution, SlashCommandsOptions } from "./commands/slash-commands.js";
export { InstalledPlugins } from "./snapshot/installed-plugins.js";
export type { InstalledPluginsOptions } from "./snapshot/installed-plugins.js";
export { PluginSnapshotter } from "./snapshot/plugin-snapshotter.js";
export type { PluginSnapshot, PluginSnapshotterOptions, PluginSettingsReader, PluginSkillSource } from "./snapshot/plugin-snapshotter.js";
export { isPluginEnabled } from "./snapshot/plugin-enablement.js";
export type { PluginSettingsDocument } from "./snapshot/plugin-enablement.js";
export { PluginManager } from "./service/plugin-manager.js";
export { pluginManagerFromConfig } from "./service/plugin-manager-from-config.js";
export type { PluginManagerOptions, PluginServerListing, PluginInstallView, MarketplacePluginView } from "./service/plugin-manager.js";
export type { PluginSummaryView, PluginDetailView, PluginState } from "./service/plugin-views.js";
export { skillContainerPrefix } from "./snapshot/skill-container-prefix.js";
export { pluginSkillSources, pluginDisabledReason } from "./snapshot/plugin-skill-sources.js";
export { fetchOptionsFromConfig, defaultFetchOptions } from "./fetch/fetch-options.js";
export type { FetchOptions } from "./fetch/fetch-options.js";
export { remoteSourceResolvers } from "./marketplace/remote-source-resolvers.js";
export { MarketplaceRegistry } from "./marketplace/marketplace-registry.js";
export type { MarketplaceRegistryOptions, MarketplaceView } from "./marketplace/marketplace-registry.js";
export type { MarketplaceSource, MarketplacePinned } from "./marketplace/marketplace-source.js";
export type { PluginVersion, PluginVersionsView } from "./service/plugin-versions.js";
