import type { Config, HostConfinement, Logger } from "@thinktank/core";
import { archiveLimitsFromConfig, createLogger, ExtensionsStore, hostConfinementFor } from "@thinktank/core";
import { createOAuthTokenStore, mcpStatusDir, McpStatusReader, OAuthSignIn } from "@thinktank/mcp";
import type { Identity } from "@thinktank/identity";
import { MemoryStore } from "@thinktank/memory";
import type { McpStatusReport, OAuthTokenStore } from "@thinktank/mcp";
import { pluginManagerFromConfig, type PluginManager } from "@thinktank/plugins";
import { createSkillsService } from "@thinktank/skills";
import type { SkillsService } from "@thinktank/skills";
import { AgentsService } from "@thinktank/subagents";
import { createToolsService, registryToolEntrySchema } from "@thinktank/tools";
import type { ToolsService } from "@thinktank/tools";
import { codeListingFor, type CodeListing } from "./code-listing.js";
import { defaultConsoleDir } from "./console-site.js";
import { lazySandboxSupport, type GatewaySandboxSupport } from "./sandbox-support.js";

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
  /** available | unavailable | shadowed | denied (plugins.host_programs: deny), with the reason. */
  readonly status?: string;
  readonly reason?: string;
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
  /**
   * Skills (routes/skills.ts): public, custom, and every installed plugin's (a disabled plugin's
   * listed as off). The route closes it with the app. When absent the route builds one over
   * skills/public, skills/custom and `plugins`' skill folders.
   */
  readonly skills?: SkillsService;
  /**
   * Sub-agents (routes/agents.ts): built-in, custom, users' own and every installed plugin's (a
   * disabled plugin's listed as off). The route closes it with the app; when absent it builds one (gatewayAgentsService).
   */
  readonly agents?: AgentsService;
  /** Registered script tools: registry, executor, execution log (routes/tools.ts). */
  readonly tools?: ToolsService;
  /** The MCP servers' live states the agent servers record (GET /api/mcp/servers): local file reads, never a wait on an agent. @default a McpStatusReader of <data_dir>/mcp-status (read at most every 250 ms) */
  readonly mcpStatus?: () => Promise<McpStatusReport>;
  /** OAuth sign-in to remote MCP servers (routes/mcp-oauth.ts): the encrypted token store the agent reads, and the sign-ins under way. */
  readonly mcpOAuth?: { readonly store: OAuthTokenStore; readonly signIn: OAuthSignIn };
  /** How programs the gateway starts on the host (git fetches, script tools) are confined; its `info` is /healthz's `host_programs`. */
  readonly hostConfinement?: HostConfinement;
  /** Whether the configured sandbox backend runs a runtime (made on first use; closed with the app). */
  readonly sandbox?: GatewaySandboxSupport;
  /** Every script tool and hook a package brings, with where and whether it runs (skill and plugin answers). */
  readonly codeListing?: CodeListing;
  /** Users, keys, authentication and the audit log. @default opened from config when the app gets ready (openIdentity), closed with it */
  readonly identity?: Identity;
  /** Every user's memory (routes/memory.ts; a deleted user's goes with them). @default MemoryStore.fromConfig(config) */
  readonly memory?: MemoryStore;
  /** The built web console (index.html + assets/), served at / when config.console.enabled. @default apps/console/dist/app of the @thinktank/console workspace */
  readonly consoleDir?: string;
}

/** The real services for `config`; `overrides` replaces any of them (tests, embedding). */
export function createGatewayDeps(config: Config, overrides: Partial<GatewayDeps> = {}): GatewayDeps {
  const store = overrides.store ?? new ExtensionsStore(config.extensions_config, { schemas: { tools: registryToolEntrySchema } });
  const hostConfinement = overrides.hostConfinement ?? hostConfinementFor(config);
  const sandbox = overrides.sandbox ?? lazySandboxSupport(config);
  // Plugin stdio servers under host_programs: sandbox are listed as the agent runs them: sandboxed where the backend can.
  const plugins = overrides.plugins ?? pluginManagerFromConfig(config, store, { hostConfinement, sandboxedStdio: () => sandbox.stdioServers() });
  const logger = overrides.logger ?? createLogger({ level: config.log.level, name: "gateway" });
  const tools = overrides.tools ?? createToolsService(config, { store, hostConfinement, sandboxRunner: sandbox });
  return {
    logger,
    store,
    plugins,
    skills: overrides.skills ?? gatewaySkillsService(config, store, plugins, logger),
    agents: overrides.agents ?? gatewayAgentsService(config, store, plugins, logger),
    listPluginServers: () => plugins.pluginServers(),
    tools,
    hostConfinement,
    sandbox,
    codeListing: overrides.codeListing ?? codeListingFor(config, { tools, sandbox }),
    mcpOAuth: overrides.mcpOAuth ?? mcpOAuthFor(config),
    mcpStatus: mcpStatusReaderFor(config),
    memory: MemoryStore.fromConfig(config),
    consoleDir: defaultConsoleDir(),
    ...overrides,
  };
}

/** The agents' MCP status records, read at most every 250 ms however many requests list servers. */
function mcpStatusReaderFor(config: Config): () => Promise<McpStatusReport> {
  const reader = new McpStatusReader(mcpStatusDir(config));
  return () => reader.read();
}

/** The token store (<data_dir>/oauth) and the sign-in flow of the gateway. */
export function mcpOAuthFor(config: Config): { store: OAuthTokenStore; signIn: OAuthSignIn } {
  const store = createOAuthTokenStore(config);
  const { client_name: clientName, client_metadata_url: clientMetadataUrl, sign_in_timeout_seconds: timeoutSeconds } = config.mcp.oauth;
  const signIn = new OAuthSignIn({ store, env: config.env, clientName, clientMetadataUrl, pendingTtlMs: timeoutSeconds * 1000, timeoutMs: config.mcp.connect_timeout_ms });
  return { store, signIn };
}

/**
 * The skills service over skills/public, skills/custom and the skills folders of every installed
 * plugin, enabled or not (categories `plugin:<plugin>`); problems go to the log as they appear.
 */
export function gatewaySkillsService(config: Config, store: ExtensionsStore, plugins: Pick<PluginManager, "skillSources"> | undefined, logger: Pick<Logger, "warn">): SkillsService {
  return createSkillsService({
    skillsRoot: config.skills.path,
    store,
    containerPath: config.skills.container_path,
    limits: archiveLimitsFromConfig(config),
    ...(plugins ? { extraSources: () => plugins.skillSources() } : {}),
    onProblem: (problem) => logger.warn({ skillProblem: problem.reason, file: problem.file }, problem.message),
    searchConfig: config,
  }).service;
}

/**
 * The agents service over agents/custom, users' own folders and every installed plugin's agents,
 * enabled or not (a disabled plugin's listed as off); problems go to the log as they appear.
 */
export function gatewayAgentsService(config: Config, store: ExtensionsStore, plugins: Pick<PluginManager, "agentPlugins"> | undefined, logger: Pick<Logger, "warn">): AgentsService {
  return new AgentsService({
    agentsRoot: config.agents.path,
    store,
    limits: archiveLimitsFromConfig(config),
    ...(plugins ? { plugins: () => plugins.agentPlugins() } : {}),
    onProblem: (problem) => logger.warn({ agentProblem: problem.severity, file: problem.file }, problem.message),
  });
}
