import path from "node:path";
import { ThinktankError, type ArchiveLimits, type ExtensionsStore } from "@thinktank/core";
import type { StdioSandboxAvailability } from "@thinktank/mcp";
import type { AgentPlugin } from "@thinktank/subagents";
import { SlashCommands } from "../commands/slash-commands.js";
import { defaultFetchOptions, type FetchOptions } from "../fetch/fetch-options.js";
import { PluginInstaller, type PluginInstallOptions, type PluginSettingsChange, type PluginInstallRecord, type PluginInstallResult, type PluginInstallSource } from "../install/plugin-installer.js";
import { stagingDir } from "../install/plugin-paths.js";
import { isValidPluginName } from "../manifest/plugin-name.js";
import { MarketplaceRegistry, type MarketplaceView } from "../marketplace/marketplace-registry.js";
import { sourceTypeOf, type PluginSourceResolvers } from "../marketplace/plugin-source-resolvers.js";
import { remoteSourceResolvers } from "../marketplace/remote-source-resolvers.js";
import { pluginVersions, type PluginVersionsView } from "./plugin-versions.js";
import type { LoadedPlugin, PluginProblem } from "../plugin-types.js";
import { mergePluginServers, type MergePluginServersOptions, type PluginHostPrograms, type PluginServerStatus } from "../servers/merge-plugin-servers.js";
import { InstalledPlugins } from "../snapshot/installed-plugins.js";
import { isPluginEnabled, pluginTrust, type PluginSettingsDocument } from "../snapshot/plugin-enablement.js";
import { pluginDisabledReason, pluginSkillSources, type PluginSkillSource } from "../snapshot/plugin-skill-sources.js";
import { countTokens } from "@thinktank/mcp";
import { keptVersion } from "../install/plugin-rollback.js";
import { pluginListingCost } from "./plugin-listing-cost.js";
import { previewMarketplacePlugin, type MarketplacePluginPreview } from "./marketplace-plugin-preview.js";
import { commandView, detailView, summaryView, type PluginDetailView, type PluginSummaryView } from "./plugin-views.js";

export interface PluginManagerOptions {
  /** config.plugins.path. */
  readonly pluginsDir: string;
  /** The extensions store (the gateway is its only writer). */
  readonly store: Pick<ExtensionsStore, "read" | "update">;
  /** Variables plugin servers' placeholders resolve from, to tell which are usable (config.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * config.plugins.host_programs: `deny` lists stdio servers as `denied` and hooks as not run;
   * `sandbox` marks stdio servers `sandbox: true`. @default "allow"
   */
  readonly hostPrograms?: PluginHostPrograms;
  /**
   * Whether the agent runs stdio servers marked `sandbox: true` on this host (the sandbox backend's
   * answer: not on deno), so their status says so. @default none: such servers are unavailable
   */
  readonly sandboxedStdio?: () => Promise<StdioSandboxAvailability>;
  /** The service's secrets, which only a trusted plugin's server may name (pass serviceSecretVariables(config)). @default serviceSecretVariables() */
  readonly serviceSecrets?: (name: string) => boolean;
  /** Virtual root of skills as the model sees them. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** Archive and folder limits (archiveLimitsFromConfig(config)). @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** Marketplace source type → resolver. @default every type but `command`: relative, github, url, git-subdir, npm, archive (fetched with `fetch`) */
  readonly sourceResolvers?: PluginSourceResolvers;
  /** How marketplaces and remote plugin sources are fetched (fetchOptionsFromConfig(config)). @default defaultFetchOptions */
  readonly fetch?: FetchOptions;
  /** Relative local marketplace paths resolve against it (config.base_dir). @default the folder holding pluginsDir */
  readonly baseDir?: string;
  /** Watch installed/ for changes. @default true */
  readonly watch?: boolean;
}

/** A plugin server as GET /api/mcp/servers lists it (the gateway's PluginServer shape). */
export interface PluginServerListing {
  readonly name: string;
  readonly plugin: string;
  readonly entry: Readonly<Record<string, unknown>>;
  readonly enabled: boolean;
  readonly status: PluginServerStatus;
  readonly reason?: string;
}

/** What an install answers: the plugin's detail, where it came from, and warnings. */
export interface PluginInstallView extends PluginDetailView {
  readonly source: PluginInstallSource;
  readonly warnings: readonly PluginProblem[];
}

/** GET /api/marketplaces/:name/plugins: one entry, and whether (and which version) is installed. */
export interface MarketplacePluginView {
  readonly name: string;
  readonly description?: string;
  readonly version?: string;
  readonly source_type: string;
  readonly installed: boolean;
  readonly installed_version?: string;
}

/**
 * The gateway's face of the plugins library: listing and describing installed plugins in the
 * API's JSON shapes, installs, enable/disable, uninstall, and plugin servers for the MCP list.
 */
export class PluginManager {
  private readonly options: PluginManagerOptions;
  private readonly installed: InstalledPlugins;
  private readonly installer: PluginInstaller;
  private readonly containerPath: string;
  /** Marketplaces added by name (POST /api/marketplaces). */
  readonly marketplaces: MarketplaceRegistry;

  constructor(options: PluginManagerOptions) {
    this.options = options;
    this.containerPath = options.containerPath ?? "/mnt/skills";
    this.installed = new InstalledPlugins({ pluginsDir: options.pluginsDir, ...(options.watch !== undefined ? { watch: options.watch } : {}) });
    const fetch = options.fetch ?? { ...defaultFetchOptions, ...(options.limits ? { archiveLimits: options.limits } : {}) };
    this.installer = new PluginInstaller({
      pluginsDir: options.pluginsDir,
      store: options.store,
      ...(options.limits ? { limits: options.limits } : {}),
      sourceResolvers: options.sourceResolvers ?? remoteSourceResolvers(fetch, () => stagingDir(options.pluginsDir)),
    });
    this.marketplaces = new MarketplaceRegistry({ pluginsDir: options.pluginsDir, store: options.store, fetch, baseDir: options.baseDir ?? path.dirname(path.resolve(options.pluginsDir)) });
  }

  async list(): Promise<{ plugins: PluginSummaryView[]; revision: number }> {
    const { document, revision, plugins } = await this.current();
    return { plugins: plugins.map((plugin) => summaryView(plugin, isPluginEnabled(document, plugin.name), pluginTrust(document, plugin.name))), revision };
  }

  async get(name: string): Promise<PluginDetailView> {
    const { document, plugins } = await this.current();
    const plugin = findPlugin(plugins, name);
    const enabled = isPluginEnabled(document, name);
    const merge = mergePluginServers([plugin], await this.serverOptions(document));
    const versions = await this.versionsOf(plugin, document);
    const rollback = (document.plugins as Readonly<Record<string, { rollback?: unknown }>> | undefined)?.[name]?.rollback ? keptVersion(this.options.pluginsDir, name) : undefined;
    return {
      ...detailView(plugin, enabled, pluginTrust(document, name), merge.servers, { containerPath: this.containerPath, ...(this.options.hostPrograms ? { hostPrograms: this.options.hostPrograms } : {}) }),
      ...(versions ? { versions } : {}),
      context_cost: pluginListingCost(plugin, { countTokens, containerPath: this.containerPath }),
      ...(rollback ? { rollback } : {}),
    };
  }

  /**
   * Swaps the plugin with the version its last update replaced (a second rollback undoes the
   * first); answers its detail and `previous`, the version it replaced. CONFLICT when none is kept.
   */
  async rollback(name: string): Promise<PluginDetailView & { previous: { version?: string } }> {
    const before = (await this.get(name)).version;
    try {
      await this.installer.rollback(name);
    } finally {
      this.installed.markChanged(name);
    }
    return { ...(await this.get(name)), previous: before === undefined ? {} : { version: before } };
  }

  /**
   * One entry of an added marketplace with what it brings, before it is installed: for a source
   * inside the marketplace's copy the plugin is read there (nothing is fetched or run); a remote
   * source says so in `note`.
   */
  async marketplacePlugin(marketplace: string, plugin: string): Promise<MarketplacePluginPreview> {
    const { marketplace: read } = await this.marketplaces.get(marketplace);
    const entry = (await this.marketplacePlugins(marketplace)).plugins.find((p) => p.name === plugin);
    return previewMarketplacePlugin(read, plugin, entry, { containerPath: this.containerPath, countTokens, serverOptions: await this.serverOptions({ ...(await this.options.store.read()).document, plugins: {} }), ...(this.options.hostPrograms ? { hostPrograms: this.options.hostPrograms } : {}) });
  }

  private async serverOptions(document: PluginSettingsDocument): Promise<MergePluginServersOptions> {
    const sandboxedStdio = this.options.hostPrograms === "sandbox" && this.options.sandboxedStdio ? await this.options.sandboxedStdio() : undefined;
    return {
      env: this.options.env,
      configured: document.mcpServers ?? {},
      trusted: (name) => pluginTrust(document, name).trusted,
      ...(this.options.hostPrograms ? { hostPrograms: this.options.hostPrograms } : {}),
      ...(sandboxedStdio ? { sandboxedStdio } : {}),
      ...(this.options.serviceSecrets ? { serviceSecrets: this.options.serviceSecrets } : {}),
    };
  }

  /** The slash commands a user can type for one plugin (commands, then user-invocable skills). */
  async commands(name: string): Promise<{ plugin: string; enabled: boolean; commands: Record<string, unknown>[] }> {
    const { document, plugins } = await this.current();
    const plugin = findPlugin(plugins, name);
    return { plugin: name, enabled: isPluginEnabled(document, name), commands: new SlashCommands([plugin]).entries.map(commandView) };
  }

  installArchive(archive: Buffer, fileName?: string, options: PluginInstallOptions = {}): Promise<PluginInstallView> {
    return this.afterInstall(this.installer.installArchive(archive, fileName, options));
  }

  installPath(location: string, options: PluginInstallOptions = {}): Promise<PluginInstallView> {
    return this.afterInstall(this.installer.installPath(location, options));
  }

  /** `marketplace`: the name of a marketplace added with addMarketplace, else the path of a marketplace.json or its folder. */
  async installFromMarketplace(marketplace: string, plugin: string, options: PluginInstallOptions = {}): Promise<PluginInstallView> {
    const added = await this.addedMarketplace(marketplace);
    const install = added
      ? this.installer.installFromMarketplace(added.path, plugin, { ...options, marketplaceName: marketplace, ...(added.pinned ? { marketplacePinned: added.pinned } : {}) })
      : this.installer.installFromMarketplace(marketplace, plugin, options);
    return this.afterInstall(install);
  }

  /**
   * Updates a plugin installed from a marketplace added by name to the entry's current version
   * in that marketplace's copy (fetching a remote source again), swapped in atomically; the old
   * version stays if anything fails. Run POST /api/marketplaces/:name/update first to see the
   * marketplace's newest commit.
   */
  async update(name: string, options: PluginInstallOptions = {}): Promise<PluginInstallView & { previous: PluginVersionsView["installed"] }> {
    const { document } = await this.options.store.read();
    const record = installRecordOf(document, name);
    if (!record) {
      const known = this.installed.list().some((p) => p.name === name);
      if (!known) throw new ThinktankError("PLUGIN_NOT_FOUND", `no plugin named '${name}' is installed`, { details: { name } });
      throw new ThinktankError("CONFLICT", `plugin '${name}' was not installed from a marketplace added by name, so it has nothing to update from; install it again instead`, { details: { name } });
    }
    const previous = (await this.get(name)).versions?.installed ?? {};
    const added = await this.addedMarketplace(record.marketplace);
    if (!added) throw new ThinktankError("MARKETPLACE_NOT_FOUND", `plugin '${name}' came from the marketplace '${record.marketplace}', which is no longer added`, { details: { name, marketplace: record.marketplace } });
    const result = await this.afterInstall(
      this.installer.updateFromMarketplace(name, added.path, record.plugin, { ...options, marketplaceName: record.marketplace, ...(added.pinned ? { marketplacePinned: added.pinned } : {}) }),
    );
    return { ...result, previous };
  }

  addMarketplace(source: unknown, name?: string): Promise<MarketplaceView> {
    return this.marketplaces.add(source, name);
  }

  listMarketplaces(): Promise<MarketplaceView[]> {
    return this.marketplaces.list();
  }

  updateMarketplace(name: string): Promise<MarketplaceView> {
    return this.marketplaces.update(name);
  }

  removeMarketplace(name: string): Promise<void> {
    return this.marketplaces.remove(name);
  }

  /** The entries of an added marketplace, each with whether it is installed (and at which version). */
  async marketplacePlugins(name: string): Promise<{ marketplace: string; plugins: MarketplacePluginView[] }> {
    const { marketplace } = await this.marketplaces.get(name);
    const { document, plugins } = await this.current();
    const views = marketplace.plugins.map((entry): MarketplacePluginView => {
      const installed = plugins.find((p) => installRecordOf(document, p.name)?.marketplace === name && installRecordOf(document, p.name)?.plugin === entry.name) ?? plugins.find((p) => p.name === entry.name);
      const installedVersion = typeof installed?.manifest.version === "string" ? installed.manifest.version : undefined;
      return {
        name: entry.name,
        ...(typeof entry.description === "string" ? { description: entry.description } : {}),
        ...(typeof entry.version === "string" ? { version: entry.version } : {}),
        source_type: sourceTypeOf(entry.source),
        installed: installed !== undefined,
        ...(installedVersion ? { installed_version: installedVersion } : {}),
      };
    });
    return { marketplace: name, plugins: views };
  }

  /** Writes `enabled`, `trusted` and `scripts_approved` (those given) to the plugin's entry; answers its detail. */
  async updateSettings(name: string, change: PluginSettingsChange): Promise<PluginDetailView> {
    await this.installer.updateSettings(name, change);
    return this.get(name);
  }

  async uninstall(name: string): Promise<{ name: string; revision: number }> {
    try {
      return await this.installer.uninstall(name);
    } finally {
      this.installed.markChanged(name);
    }
  }

  /** Every installed plugin's servers as `<plugin>:<server>`: `enabled` when its plugin is enabled and valid and no configured server has its name; `status` and `reason` say whether it can be used. */
  async pluginServers(): Promise<PluginServerListing[]> {
    const { document, plugins } = await this.current();
    const merge = mergePluginServers(plugins, await this.serverOptions(document));
    const active = new Set(plugins.filter((p) => isPluginEnabled(document, p.name) && !p.problems.some((q) => q.severity === "error")).map((p) => p.name));
    return merge.servers.map((server) => ({
      name: server.name,
      plugin: server.plugin,
      entry: server.declared,
      enabled: active.has(server.plugin) && server.status !== "shadowed" && server.status !== "denied",
      status: server.status,
      ...(server.reason ? { reason: server.reason } : {}),
    }));
  }

  /**
   * The skills folders of every installed plugin, enabled or not, for the gateway's skills list:
   * a disabled plugin's (or one with errors) carry `disabledReason`, so its skills are listed
   * as off. Cheap while nothing changed (one cached store read, the watched plugin list).
   */
  async skillSources(): Promise<PluginSkillSource[]> {
    const { document, plugins } = await this.current();
    return plugins.flatMap((plugin) => pluginSkillSources(plugin, pluginDisabledReason(plugin, document), pluginTrust(document, plugin.name)));
  }

  /**
   * Every installed plugin's agents, enabled or not, for the gateway's agents list (the
   * AgentsSnapshotter's `plugins` of @thinktank/subagents): a disabled plugin's (or one with
   * errors) carry `disabledReason`, so its agents are listed as off. Cheap while nothing changed.
   */
  async agentPlugins(): Promise<AgentPlugin[]> {
    const { document, plugins } = await this.current();
    return plugins.map((plugin) => {
      const disabledReason = pluginDisabledReason(plugin, document);
      return { name: plugin.name, root: plugin.root, agents: plugin.agents, ...(disabledReason === undefined ? {} : { disabledReason }) };
    });
  }

  close(): void {
    this.installed.close();
  }

  private async current(): Promise<{ document: PluginSettingsDocument; revision: number; plugins: readonly LoadedPlugin[] }> {
    const { document, revision } = await this.options.store.read();
    return { document, revision, plugins: this.installed.list() };
  }

  /** The copy and pin of a marketplace added by name, or undefined when `name` is not one (a path, then). */
  private async addedMarketplace(name: string): Promise<{ path: string; pinned?: { commit?: string; integrity?: string } } | undefined> {
    if (!isValidPluginName(name)) return undefined;
    const { document } = await this.options.store.read();
    const record = (document as { marketplaces?: Record<string, { pinned?: { commit?: string; integrity?: string } }> }).marketplaces?.[name];
    if (!record) return undefined;
    return { path: this.marketplaces.folder(name), ...(record.pinned ? { pinned: { ...record.pinned } } : {}) };
  }

  private async versionsOf(plugin: LoadedPlugin, document: PluginSettingsDocument): Promise<PluginVersionsView | undefined> {
    const record = installRecordOf(document, plugin.name);
    if (!record) return undefined;
    const marketplace = await this.marketplaces.get(record.marketplace).catch(() => undefined);
    return pluginVersions(record, typeof plugin.manifest.version === "string" ? plugin.manifest.version : undefined, marketplace);
  }

  private async afterInstall(pending: Promise<PluginInstallResult>): Promise<PluginInstallView> {
    const result = await pending;
    this.installed.markChanged(result.plugin.name);
    const detail = await this.get(result.plugin.name);
    return { ...detail, source: result.source, warnings: result.warnings };
  }
}

/** `plugins[name].installed_from` in the store: set by installs from a marketplace added by name. */
function installRecordOf(document: PluginSettingsDocument, name: string): PluginInstallRecord | undefined {
  const entry = (document.plugins as Readonly<Record<string, { installed_from?: unknown }>> | undefined)?.[name];
  const record = entry?.installed_from as PluginInstallRecord | undefined;
  return record && typeof record.marketplace === "string" && typeof record.plugin === "string" ? record : undefined;
}

function findPlugin(plugins: readonly LoadedPlugin[], name: string): LoadedPlugin {
  const plugin = plugins.find((p) => p.name === name);
  if (!plugin) throw new ThinktankError("PLUGIN_NOT_FOUND", `no plugin named '${name}' is installed`, { details: { name } });
  return plugin;
}
