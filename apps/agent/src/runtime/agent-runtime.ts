import path from "node:path";
import { ExtensionsStore, hostConfinementFor, operatorId, serviceSecretVariables, type Config, type ExtensionsSnapshot, type HostConfinement } from "@thinktank/core";
import { CodeModeRuntime } from "@thinktank/codemode";
import { countTokens, mcpStatusDir, McpStatusRecorder, type ManagerLogger } from "@thinktank/mcp";
import { MemoryStore } from "@thinktank/memory";
import { embedderFromConfig, SemanticStage } from "@thinktank/search";
import { PluginSnapshotter, SlashCommands, type PluginSnapshot } from "@thinktank/plugins";
import { createSandboxExecutor, createSandboxScriptRunner, createStdioServerSandbox, type SandboxExecutor } from "@thinktank/sandbox";
import { AgentsSnapshotter, UserAgentViews, type AgentsSnapshot } from "@thinktank/subagents";
import { defaultSkillSources, restrictSkills, SkillListing, SkillsSnapshotter, UserSkillViews, type ScriptToolRunner, type SkillsSnapshot, type SkillViewFiles } from "@thinktank/skills";
import { createToolsService, registryToolEntrySchema, type ToolsService } from "@thinktank/tools";
import type { RunAssistant } from "../assistants/run-assistant.js";
import { runtimeServerEntries } from "./runtime-server-entries.js";

export interface AgentRuntimeOptions {
  /** Where problems (skipped skills, MCP server failures, tools log errors) are logged. @default a logger that drops everything */
  readonly logger?: ManagerLogger;
  /** Runs bash, execute_code and untrusted script tools. @default createSandboxExecutor for config.sandbox */
  readonly executor?: SandboxExecutor;
  /**
   * Registered script tools and built-ins (@thinktank/tools): their request provider, the `tools`
   * server of code mode, and the runner of skill-scoped script tools. false leaves them out.
   * @default createToolsService(config) over the runtime's store
   */
  readonly tools?: ToolsService | false;
  /** Watch the skill and plugin folders (false re-checks them on every request). @default true */
  readonly watch?: boolean;
  /** How programs this server starts on the host (trusted script tools, stdio MCP servers) are confined. @default hostConfinementFor(config) */
  readonly hostConfinement?: HostConfinement;
}

/** What one request sees of extensions: the same frozen objects while nothing changed. */
export interface AgentSnapshot {
  readonly settings: ExtensionsSnapshot;
  /** The skills as the run's owner sees them (the shared snapshot itself for the operator and for users without choices of their own). */
  readonly skills: SkillsSnapshot;
  readonly plugins: PluginSnapshot;
  /** Plugin commands and user-invocable skills as slash commands. */
  readonly commands: SlashCommands;
  /** How skills and commands reach the model (config.skills.listing): full, or compact with search and per-message offers. */
  readonly listing: SkillListing;
  /**
   * The sub-agents as the run's owner sees them (@thinktank/subagents): built-in, the enabled
   * plugins', `custom:` and the owner's own `user:` agents, disabled ones with `enabled: false`
   * (findAgent does not find them for running). The same frozen object while nothing changed.
   */
  readonly agents: AgentsSnapshot;
}

const silentLogger: ManagerLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The agent server's long-lived state behind every request: extensions_config.json (read only),
 * the plugin and skill snapshotters (plugin skills join as sources), the code-mode runtime (the
 * MCP manager over configured + plugin servers, the sandbox, list_servers / search_tools /
 * execute_code and /mcp), and the registered tools. `snapshot()` costs a few stats and flag checks
 * while nothing changed; a change made through the gateway (every mutation bumps the store
 * revision) shows on the next call.
 */
export class AgentRuntime {
  readonly store: ExtensionsStore;
  readonly plugins: PluginSnapshotter;
  readonly skills: SkillsSnapshotter;
  /** Each user's view over `skills`: their overlay and own skills, cached per user. */
  readonly skillViews: UserSkillViews;
  /** The shared sub-agents: built-in, the enabled plugins' (as the plugins snapshot read them) and agents/custom. */
  readonly agents: AgentsSnapshotter;
  /** Each user's view over `agents`: their overlay and own agents (agents/users/<folder>), cached per user. */
  readonly agentViews: UserAgentViews;
  readonly codeMode: CodeModeRuntime;
  /** Every user's memory (`<data_dir>/memory/<user folder>`, seen as /memories): a run reaches only its owner's. */
  readonly memory: MemoryStore;
  readonly tools: ToolsService | undefined;
  readonly logger: ManagerLogger;
  /** Confines every program this server starts on the host; its `info` is /healthz's `host_programs`. */
  readonly hostConfinement: HostConfinement;
  /** Writes the MCP manager's states where the gateway and `thinktank mcp list` read them (<data_dir>/mcp-status), from start() to close(). */
  readonly mcpStatus: McpStatusRecorder;
  /** config.search.embeddings' semantic stage for skill search and each message's offer (its vectors cached across snapshots); undefined with provider none. */
  readonly semantic: SemanticStage | undefined;
  private readonly perRequest = new WeakMap<object, Promise<AgentSnapshot>>();
  /**
   * The slash commands of each skills view (the shared one, and each user's) while its plugins
   * snapshot holds, and its listing per agents view (users with their own agents share skills views).
   */
  private readonly commands = new WeakMap<SkillsSnapshot, Map<string, { plugins: PluginSnapshot; commands: SlashCommands; listings: WeakMap<AgentsSnapshot, SkillListing> }>>();
  /** Views restricted by an assistant's selection, per view and selection (RunAssistant's keys). */
  private readonly restrictedSkills = new WeakMap<SkillsSnapshot, Map<string, SkillsSnapshot>>();
  private readonly restrictedAgents = new WeakMap<AgentsSnapshot, Map<string, AgentsSnapshot>>();
  /** Token counts of listing pieces (one skill's entry is the same piece in every user's listing), so a user's listing counts only what is theirs. */
  private readonly listingTokens = new Map<string, number>();
  private closed = false;

  constructor(
    readonly config: Config,
    options: AgentRuntimeOptions = {},
  ) {
    const logger = options.logger ?? silentLogger;
    this.logger = logger;
    const hostConfinement = options.hostConfinement ?? hostConfinementFor(config);
    this.hostConfinement = hostConfinement;
    this.store = new ExtensionsStore(config.extensions_config, { schemas: { tools: registryToolEntrySchema } });
    const watch = options.watch ?? true;
    // Plugin stdio servers under host_programs: sandbox run in the sandbox (the MCP manager is given a stdio sandbox below).
    this.plugins = new PluginSnapshotter({ pluginsDir: config.plugins.path, settings: this.store, env: config.env, hostPrograms: config.plugins.host_programs, serviceSecrets: serviceSecretVariables(config), sandboxedStdio: true, watch });
    const builtIn = defaultSkillSources(config.skills.path);
    this.skills = new SkillsSnapshotter({
      sources: async () => [...builtIn, ...(await this.plugins.snapshot()).skillSources],
      settings: this.store,
      containerPath: config.skills.container_path,
      watch,
      onProblem: (problem) => logger.warn({ problem: problem.reason, file: problem.file, identity: problem.identity }, problem.message),
    });
    this.skillViews = new UserSkillViews({
      snapshotter: this.skills,
      settings: this.store,
      skillsRoot: config.skills.path,
      containerPath: config.skills.container_path,
      watch,
      onProblem: (problem) => logger.warn({ problem: problem.reason, file: problem.file, identity: problem.identity }, problem.message),
    });
    this.agents = new AgentsSnapshotter({
      agentsRoot: config.agents.path,
      settings: this.store,
      // Only enabled, valid plugins are in the snapshot: a disabled plugin's agents are not listed here.
      plugins: async () => (await this.plugins.snapshot()).plugins,
      watch,
      onProblem: (problem) => logger.warn({ problem: "agent", file: problem.file }, problem.message),
    });
    this.agentViews = new UserAgentViews({ snapshotter: this.agents, settings: this.store, agentsRoot: config.agents.path, watch });
    const executor = options.executor ?? createSandboxExecutor({ config, ...(config.env.PATH ? { searchPath: config.env.PATH } : {}) });
    // Its runtime folder holds the workers' bridge and egress sockets: no host program sees it.
    hostConfinement.hide(executor.runtimeFolder);
    // Untrusted script tools (skills not trusted by an administrator) run in the same sandbox, each call in a fresh folder under .script-runs.
    const sandboxRunner = createSandboxScriptRunner(executor, { workRoot: path.join(config.sandbox.workspaces_dir, ".script-runs") });
    this.tools =
      options.tools === false
        ? undefined
        : (options.tools ?? createToolsService(config, { store: this.store, hostConfinement, sandboxRunner, onLogError: (error) => logger.warn({ error: String(error) }, "the tools execution log cannot be written") }));
    this.memory = MemoryStore.fromConfig(config);
    const embedder = embedderFromConfig(config);
    this.semantic = embedder ? new SemanticStage({ embedder, weight: config.search.embeddings.weight }) : undefined;
    this.codeMode = new CodeModeRuntime(config, {
      servers: runtimeServerEntries(this.store, this.plugins),
      logger,
      hostConfinement,
      executor,
      // Stdio servers marked sandbox: true (and plugin servers under host_programs: sandbox) start in this executor's sandbox.
      stdioSandbox: createStdioServerSandbox(config, { executor }),
      ...(this.tools ? { invokers: [this.tools.invoker] } : {}),
      // THINKTANK_REPLICA names this server among several behind one proxy (docs/docker.md, "Several replicas").
      ...(config.env.THINKTANK_REPLICA ? { mcpSessionPrefix: config.env.THINKTANK_REPLICA } : {}),
    });
    // Each look first brings the manager in line with the configuration (a few stats while nothing changed), so a
    // server added through the gateway connects and shows its state without waiting for a run.
    this.mcpStatus = new McpStatusRecorder({
      dir: mcpStatusDir(config),
      manager: this.codeMode.manager,
      ...(config.env.THINKTANK_REPLICA ? { replica: config.env.THINKTANK_REPLICA } : {}),
      beforeLook: () => this.codeMode.refresh(),
      logger,
    });
  }

  get executor(): SandboxExecutor {
    return this.codeMode.executor;
  }

  /** Runs the script tools of skill contexts (tools.json): the tools library's executor. */
  get scriptTools(): ScriptToolRunner | undefined {
    return this.tools?.executor;
  }

  /**
   * The start-up check: extensions_config.json must exist and parse (CONFIG_INVALID /
   * STORE_CORRUPT naming the file), the tools registry must be well-formed; then the first
   * snapshot, so the first run finds warm caches, and the MCP status record starts.
   */
  async start(): Promise<AgentSnapshot> {
    await this.store.read();
    await this.tools?.check();
    const snapshot = await this.snapshot();
    if (!this.closed) await this.mcpStatus.start();
    return snapshot;
  }

  /**
   * The current snapshot of settings, skills, plugins and commands as `ownerId` sees them (the
   * shared snapshot is taken once; a user's overlay and own skills go on top, cached per user);
   * also brings the MCP manager in line. With `assistant`, only the skills, plugin commands and
   * sub-agents it selects stay enabled, so the listing, search, offers and commands follow; each
   * restricted view is made once per view and selection.
   */
  async snapshot(ownerId?: string, assistant?: RunAssistant): Promise<AgentSnapshot> {
    const [settings, viewSkills, plugins, viewAgents] = await Promise.all([this.store.read(), this.skillsFor(ownerId), this.plugins.snapshot(), this.agentsFor(ownerId), this.codeMode.refresh()]);
    const containerPath = this.config.skills.container_path;
    const skills = assistant?.skills ? restrictedView(this.restrictedSkills, viewSkills, assistant.skillsKey, () => restrictSkills(viewSkills, assistant.skills as (identity: string) => boolean, { containerPath })) : viewSkills;
    const agents = assistant?.agents ? restrictedView(this.restrictedAgents, viewAgents, assistant.agentsKey, () => restrictAgents(viewAgents, assistant.agents as (identity: string) => boolean)) : viewAgents;
    const commandsKey = assistant?.skillsKey ?? "";
    let byKey = this.commands.get(skills);
    if (!byKey) {
      byKey = new Map();
      this.commands.set(skills, byKey);
    }
    let current = byKey.get(commandsKey);
    if (!current || current.plugins !== plugins) {
      const commandPlugins = assistant?.skills ? selectCommands(plugins.plugins, assistant.skills) : plugins.plugins;
      current = { plugins, commands: new SlashCommands(commandPlugins, { skills }), listings: new WeakMap() };
      byKey.set(commandsKey, current);
    }
    let listing = current.listings.get(agents);
    if (!listing) {
      listing = this.listingFor(skills, current.commands, agents);
      current.listings.set(agents, listing);
    }
    return { settings, skills, plugins, commands: current.commands, listing, agents };
  }

  /** The sub-agents as `ownerId` sees them now; the operator (and no owner) sees the defaults. */
  agentsFor(ownerId: string | undefined): Promise<AgentsSnapshot> {
    return this.agentViews.viewFor(ownerId === operatorId ? undefined : ownerId);
  }

  /** The skills as `ownerId` sees them now; the operator (and no owner) sees the defaults. */
  skillsFor(ownerId: string | undefined): Promise<SkillsSnapshot> {
    return this.skillViews.viewFor(ownerId === operatorId ? undefined : ownerId);
  }

  /** `/mnt/skills` for `ownerId`'s runs: only the skills enabled in their view resolve and mount. */
  skillFilesFor(ownerId: string | undefined): SkillViewFiles {
    return this.skillViews.filesFor(ownerId === operatorId ? undefined : ownerId);
  }

  /**
   * The listing of skills, slash commands and sub-agents (the enabled ones; none when
   * subagents.enabled is false); it computes what it needs on first use.
   */
  private listingFor(skills: SkillsSnapshot, commands: SlashCommands, agentsView: AgentsSnapshot): SkillListing {
    const { listing, auto_threshold_tokens: autoThresholdTokens, relevant_limit: relevantLimit, relevant_named_limit: relevantNamedLimit, container_path: containerPath } = this.config.skills;
    const counted = (text: string): number => {
      let tokens = this.listingTokens.get(text);
      if (tokens === undefined) {
        tokens = countTokens(text);
        // Bounded: a catalog that changes all day starts afresh now and then.
        if (this.listingTokens.size >= 20_000) this.listingTokens.clear();
        this.listingTokens.set(text, tokens);
      }
      return tokens;
    };
    const agents = this.config.subagents.enabled ? agentsView.agents.filter((agent) => agent.enabled) : [];
    return new SkillListing(skills, commands.entries, () => commands.promptSection(), { listing, autoThresholdTokens, relevantLimit, relevantNamedLimit, containerPath, countTokens: counted, agents, ...(this.semantic ? { semantic: { stage: this.semantic } } : {}) });
  }

  /** One snapshot per request object (as its owner sees it, restricted by its assistant): every provider of a run sees the same one. */
  snapshotFor(request: { readonly ownerId?: string; readonly assistant?: RunAssistant }): Promise<AgentSnapshot> {
    let snapshot = this.perRequest.get(request);
    if (!snapshot) {
      snapshot = this.snapshot(request.ownerId, request.assistant);
      this.perRequest.set(request, snapshot);
    }
    return snapshot;
  }

  /** Stops MCP servers, sandbox workers and folder watchers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The last states are kept, marked stopped, before the servers close.
    await this.mcpStatus.stop();
    this.skillViews.close();
    this.skills.close();
    this.agentViews.close();
    this.agents.close();
    this.plugins.close();
    await this.codeMode.close();
  }
}

/** The view restricted by one selection, made once per view and selection (a few selections per view are kept). */
function restrictedView<View extends object>(cache: WeakMap<View, Map<string, View>>, view: View, key: string, make: () => View): View {
  let byKey = cache.get(view);
  if (!byKey) {
    byKey = new Map();
    cache.set(view, byKey);
  }
  let restricted = byKey.get(key);
  if (!restricted) {
    restricted = make();
    // Bounded: a view lives until something changes; many assistants at once start afresh now and then.
    if (byKey.size >= 200) byKey.clear();
    byKey.set(key, restricted);
  }
  return restricted;
}

/** The sub-agents `allowed` lets through stay enabled; the others show `enabled: false` (not listed, not run by task). */
function restrictAgents(view: AgentsSnapshot, allowed: (identity: string) => boolean): AgentsSnapshot {
  return Object.freeze({ ...view, agents: Object.freeze(view.agents.map((agent) => (agent.enabled && !allowed(agent.identity) ? Object.freeze({ ...agent, enabled: false }) : agent))) });
}

/** The plugins with only the commands a skill selection lets through (a command counts as `plugin:<plugin>:<command>`). */
function selectCommands(plugins: PluginSnapshot["plugins"], allowed: (identity: string) => boolean): PluginSnapshot["plugins"] {
  return plugins.map((plugin) => {
    const commands = plugin.commands.filter((command) => allowed(`plugin:${plugin.name}:${command.name}`));
    return commands.length === plugin.commands.length ? plugin : { ...plugin, commands };
  });
}
