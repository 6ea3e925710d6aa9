import type { Config, Logger } from "@thinktank/core";
import { archiveLimitsFromConfig, createLogger, ExtensionsStore } from "@thinktank/core";
import { PluginManager } from "@thinktank/plugins";
import type { SkillsService } from "@thinktank/skills";
import { createToolsService, registryToolEntrySchema } from "@thinktank/tools";
import type { ToolsService } from "@thinktank/tools";

/** An MCP server a plugin brings, as the plugins library reports it for GET /api/mcp/servers. */
export interface PluginServer {
  /** The namespaced name the agent uses, e.g. `github-tools:github`. */
  readonly name: string;
  /** The plugin it comes from. */
  readonly plugin: string;
  /** The server entry as the plugin's .mcp.json writes it (placeholders unresolved; masked before it is shown). */
  readonly entry: Readonly<Record<string, unknown>>;
  /** Whether the agent uses it (its plugin is enabled and the entry is not disabled). @default true */
  readonly enabled?: boolean;
}

/**
 * The services routes use. `createGatewayDeps` builds the real ones from config; tests build
 * their own or override some. Areas add their service here as one more (optional until wired) field.
 */
export interface GatewayDeps {
  readonly logger: Logger;
  /** extensions_config.json: the gateway is its only writer. */
  readonly store: ExtensionsStore;
  /** MCP servers merged in from enabled plugins (the plugins area provides it). */
  readonly listPluginServers?: () => Promise<readonly PluginServer[]>;
  /** Installed plugins: list, describe, install, enable/disable, uninstall (routes/plugins.ts). */
  readonly plugins?: PluginManager;
  /** Skills (routes/skills.ts). When absent the route builds one over skills/public and skills/custom; pass one made with createSkillsService({ extraSources }) to list plugin skills too. */
  readonly skills?: SkillsService;
  /** Registered script tools: registry, executor, execution log (routes/tools.ts). */
  readonly tools?: ToolsService;
}

/** The real services for `config`; `overrides` replaces any of them (tests, embedding). */
export function createGatewayDeps(config: Config, overrides: Partial<GatewayDeps> = {}): GatewayDeps {
  const store = overrides.store ?? new ExtensionsStore(config.extensions_config, { schemas: { tools: registryToolEntrySchema } });
  const plugins =
    overrides.plugins ??
    new PluginManager({ pluginsDir: config.plugins.path, store, env: config.env, containerPath: config.skills.container_path, limits: archiveLimitsFromConfig(config) });
  return {
    logger: overrides.logger ?? createLogger({ level: config.log.level, name: "gateway" }),
    store,
    plugins,
    listPluginServers: () => plugins.pluginServers(),
    tools: overrides.tools ?? createToolsService(config, { store }),
    ...overrides,
  };
}
