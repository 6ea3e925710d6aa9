import { ThinktankError, type ArchiveLimits, type ExtensionsStore } from "@thinktank/core";
import { SlashCommands } from "../commands/slash-commands.js";
import { PluginInstaller, type PluginInstallOptions, type PluginInstallResult, type PluginInstallSource } from "../install/plugin-installer.js";
import type { PluginSourceResolvers } from "../marketplace/plugin-source-resolvers.js";
import type { LoadedPlugin, PluginProblem } from "../plugin-types.js";
import { mergePluginServers, type MergePluginServersOptions, type PluginServerStatus, type PluginStdioPolicy } from "../servers/merge-plugin-servers.js";
import { InstalledPlugins } from "../snapshot/installed-plugins.js";
import { isPluginEnabled, type PluginSettingsDocument } from "../snapshot/plugin-enablement.js";
import { pluginDisabledReason, pluginSkillSources, type PluginSkillSource } from "../snapshot/plugin-skill-sources.js";
import { commandView, detailView, summaryView, type PluginDetailView, type PluginSummaryView } from "./plugin-views.js";

export interface PluginManagerOptions {
  /** config.plugins.path. */
  readonly pluginsDir: string;
  /** The extensions store (the gateway is its only writer). */
  readonly store: Pick<ExtensionsStore, "read" | "update">;
  /** Variables plugin servers' placeholders resolve from, to tell which are usable (config.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** config.plugins.stdio_servers: `deny` lists stdio servers as `denied`. @default "allow" */
  readonly stdioServers?: PluginStdioPolicy;
  /** Virtual root of skills as the model sees them. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** Archive and folder limits (archiveLimitsFromConfig(config)). @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** @default only relative marketplace sources */
  readonly sourceResolvers?: PluginSourceResolvers;
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

/**
 * The gateway's face of the plugins library: listing and describing installed plugins in the
 * API's JSON shapes, installs, enable/disable, uninstall, and plugin servers for the MCP list.
 */
export class PluginManager {
  private readonly options: PluginManagerOptions;
  private readonly installed: InstalledPlugins;
  private readonly installer: PluginInstaller;
  private readonly containerPath: string;

  constructor(options: PluginManagerOptions) {
    this.options = options;
    this.containerPath = options.containerPath ?? "/mnt/skills";
    this.installed = new InstalledPlugins({ pluginsDir: options.pluginsDir, ...(options.watch !== undefined ? { watch: options.watch } : {}) });
    this.installer = new PluginInstaller({
      pluginsDir: options.pluginsDir,
      store: options.store,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.sourceResolvers ? { sourceResolvers: options.sourceResolvers } : {}),
    });
  }

  async list(): Promise<{ plugins: PluginSummaryView[]; revision: number }> {
    const { document, revision, plugins } = await this.current();
    return { plugins: plugins.map((plugin) => summaryView(plugin, isPluginEnabled(document, plugin.name))), revision };
  }

  async get(name: string): Promise<PluginDetailView> {
    const { document, plugins } = await this.current();
    const plugin = findPlugin(plugins, name);
    const enabled = isPluginEnabled(document, name);
    const merge = mergePluginServers([plugin], this.serverOptions(document));
    return detailView(plugin, enabled, merge.servers, this.containerPath);
  }

  private serverOptions(document: PluginSettingsDocument): MergePluginServersOptions {
    return { env: this.options.env, configured: document.mcpServers ?? {}, ...(this.options.stdioServers ? { stdioServers: this.options.stdioServers } : {}) };
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

  installFromMarketplace(marketplace: string, plugin: string, options: PluginInstallOptions = {}): Promise<PluginInstallView> {
    return this.afterInstall(this.installer.installFromMarketplace(marketplace, plugin, options));
  }

  async setEnabled(name: string, enabled: boolean): Promise<PluginDetailView> {
    await this.installer.setEnabled(name, enabled);
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
    const merge = mergePluginServers(plugins, this.serverOptions(document));
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
    return plugins.flatMap((plugin) => pluginSkillSources(plugin, pluginDisabledReason(plugin, document)));
  }

  close(): void {
    this.installed.close();
  }

  private async current(): Promise<{ document: PluginSettingsDocument; revision: number; plugins: readonly LoadedPlugin[] }> {
    const { document, revision } = await this.options.store.read();
    return { document, revision, plugins: this.installed.list() };
  }

  private async afterInstall(pending: Promise<PluginInstallResult>): Promise<PluginInstallView> {
    const result = await pending;
    this.installed.markChanged(result.plugin.name);
    const detail = await this.get(result.plugin.name);
    return { ...detail, source: result.source, warnings: result.warnings };
  }
}

function findPlugin(plugins: readonly LoadedPlugin[], name: string): LoadedPlugin {
  const plugin = plugins.find((p) => p.name === name);
  if (!plugin) throw new ThinktankError("PLUGIN_NOT_FOUND", `no plugin named '${name}' is installed`, { details: { name } });
  return plugin;
}
