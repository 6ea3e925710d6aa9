import { SlashCommands } from "../commands/slash-commands.js";
import type { LoadedPlugin, PluginProblem } from "../plugin-types.js";
import { mergePluginServers, type PluginHostPrograms, type PluginServerMerge } from "../servers/merge-plugin-servers.js";
import { InstalledPlugins, type InstalledPluginsOptions } from "./installed-plugins.js";
import { isPluginEnabled, pluginTrust, type PluginSettingsDocument } from "./plugin-enablement.js";
import { pluginSkillSources, type PluginSkillSource } from "./plugin-skill-sources.js";

export type { PluginSkillSource } from "./plugin-skill-sources.js";

/** Reads extensions_config.json: the core ExtensionsStore fits. */
export interface PluginSettingsReader {
  read(): Promise<{ readonly document: PluginSettingsDocument; readonly revision: number }>;
}

/** What the agent takes from plugins for one request. Immutable; the same object until something changes. */
export interface PluginSnapshot {
  /** Enabled, valid plugins, by name. */
  readonly plugins: readonly LoadedPlugin[];
  /** Installed plugins switched off in the store. */
  readonly disabled: readonly string[];
  /** Installed plugins left out because they have errors (edited by hand since their install). */
  readonly invalid: readonly { readonly name: string; readonly problems: readonly PluginProblem[] }[];
  /** One skills-loader source per skills folder of each enabled plugin. */
  readonly skillSources: readonly PluginSkillSource[];
  /** The slash commands of the enabled plugins. */
  readonly commands: SlashCommands;
  /** The enabled plugins' MCP servers as `<plugin>:<server>`, with status and clashes. */
  readonly servers: PluginServerMerge;
  /** The store revision it was built from. */
  readonly revision: number;
  /** Increases by one each time the snapshot is rebuilt. */
  readonly version: number;
}

export interface PluginSnapshotterOptions extends InstalledPluginsOptions {
  readonly settings: PluginSettingsReader;
  /** Variables for telling which plugin servers are usable (pass config.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** config.plugins.host_programs: `deny` lists stdio servers as denied, `sandbox` marks them `sandbox: true`. @default "allow" */
  readonly hostPrograms?: PluginHostPrograms;
  /** Whether the MCP manager this snapshot feeds runs stdio servers in the sandbox (it was given a stdio sandbox). @default false */
  readonly sandboxedStdio?: boolean;
  /** The service's secrets, which only a trusted plugin's server may name (pass serviceSecretVariables(config)). @default serviceSecretVariables() */
  readonly serviceSecrets?: (name: string) => boolean;
}

type ServerOptions = Pick<PluginSnapshotterOptions, "env" | "hostPrograms" | "sandboxedStdio" | "serviceSecrets">;

/**
 * Keeps the plugin side of the agent's request context current for almost nothing while
 * nothing changes: a snapshot reads the store (one stat when unchanged) and the watchers'
 * dirty flags and returns the same frozen object. A new store revision (every install,
 * enable, disable and uninstall makes one) re-verifies the installed folders and rebuilds.
 */
export class PluginSnapshotter {
  private readonly settings: PluginSettingsReader;
  private readonly serverOptions: ServerOptions;
  private readonly installed: InstalledPlugins;
  private current: PluginSnapshot | undefined;
  private builtFrom: { document: PluginSettingsDocument; installedVersion: number } | undefined;
  private inflight: Promise<PluginSnapshot> | undefined;

  constructor(options: PluginSnapshotterOptions) {
    this.settings = options.settings;
    this.serverOptions = { env: options.env, ...(options.hostPrograms ? { hostPrograms: options.hostPrograms } : {}), ...(options.sandboxedStdio ? { sandboxedStdio: true } : {}), ...(options.serviceSecrets ? { serviceSecrets: options.serviceSecrets } : {}) };
    this.installed = new InstalledPlugins(options);
  }

  /** The current snapshot; concurrent callers share one refresh. */
  snapshot(): Promise<PluginSnapshot> {
    this.inflight ??= this.refresh().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  close(): void {
    this.installed.close();
  }

  private async refresh(): Promise<PluginSnapshot> {
    const { document, revision } = await this.settings.read();
    const current = this.current;
    if (current && this.builtFrom && revision === current.revision && document === this.builtFrom.document && !this.installed.isDirty) return current;
    const plugins = this.installed.list({ verify: !current || revision !== current.revision });
    if (current && this.builtFrom && revision === current.revision && document === this.builtFrom.document && this.installed.version === this.builtFrom.installedVersion) {
      return current;
    }
    this.current = build(plugins, document, revision, this.serverOptions, (current?.version ?? 0) + 1);
    this.builtFrom = { document, installedVersion: this.installed.version };
    return this.current;
  }
}

function build(installed: readonly LoadedPlugin[], document: PluginSettingsDocument, revision: number, serverOptions: ServerOptions, version: number): PluginSnapshot {
  const plugins: LoadedPlugin[] = [];
  const disabled: string[] = [];
  const invalid: { name: string; problems: PluginProblem[] }[] = [];
  for (const plugin of installed) {
    const errors = plugin.problems.filter((p) => p.severity === "error");
    if (errors.length > 0) invalid.push({ name: plugin.name, problems: errors });
    else if (!isPluginEnabled(document, plugin.name)) disabled.push(plugin.name);
    else plugins.push(plugin);
  }
  const skillSources: PluginSkillSource[] = plugins.flatMap((plugin) => pluginSkillSources(plugin, undefined, pluginTrust(document, plugin.name)));
  return Object.freeze({
    plugins,
    disabled,
    invalid,
    skillSources,
    commands: new SlashCommands(plugins),
    servers: mergePluginServers(plugins, { ...serverOptions, configured: document.mcpServers ?? {}, trusted: (name) => pluginTrust(document, name).trusted }),
    revision,
    version,
  });
}
