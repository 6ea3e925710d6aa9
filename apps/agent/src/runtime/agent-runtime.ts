import { ExtensionsStore, type Config } from "@thinktank/core";
import { CodeModeRuntime } from "@thinktank/codemode";
import type { ManagerLogger } from "@thinktank/mcp";
import { PluginSnapshotter, type PluginSnapshot } from "@thinktank/plugins";
import type { SandboxExecutor } from "@thinktank/sandbox";
import { defaultSkillSources, SkillsSnapshotter, type SkillsSnapshot } from "@thinktank/skills";
import { AgentCommands } from "../commands/agent-commands.js";
import type { ScriptToolRunner } from "../skill-context/script-tool-runner.js";
import { ExtensionsSettings, type ExtensionsReading } from "./extensions-settings.js";
import { runtimeServerEntries } from "./runtime-server-entries.js";

export interface AgentRuntimeOptions {
  /** Where problems (skipped skills, MCP server failures) are logged. @default a logger that drops everything */
  readonly logger?: ManagerLogger;
  /** Runs bash and execute_code. @default createSandboxExecutor for config.sandbox (through CodeModeRuntime) */
  readonly executor?: SandboxExecutor;
  /** Runs the script tools of skill contexts (tools.json). @default none: such tools answer that no runner is configured */
  readonly scriptTools?: ScriptToolRunner;
  /** Watch the skill and plugin folders (false re-checks them on every request). @default true */
  readonly watch?: boolean;
}

/** What one request sees of extensions: the same frozen objects while nothing changed. */
export interface AgentSnapshot {
  readonly settings: ExtensionsReading;
  readonly skills: SkillsSnapshot;
  readonly plugins: PluginSnapshot;
  /** Plugin commands and user-invocable skills as slash commands. */
  readonly commands: AgentCommands;
}

const silentLogger: ManagerLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The agent server's long-lived state behind every request: extensions_config.json (read only),
 * the plugin and skill snapshotters (plugin skills join as sources), the code-mode runtime (the
 * MCP manager over configured + plugin servers, the sandbox, list_servers / search_tools /
 * execute_code and /mcp). `snapshot()` costs a few stats and flag checks while nothing changed;
 * a change made through the gateway (any mutation bumps the store revision) shows on the next call.
 */
export class AgentRuntime {
  readonly settings: ExtensionsSettings;
  readonly plugins: PluginSnapshotter;
  readonly skills: SkillsSnapshotter;
  readonly codeMode: CodeModeRuntime;
  readonly scriptTools: ScriptToolRunner | undefined;
  readonly logger: ManagerLogger;
  private readonly perRequest = new WeakMap<object, Promise<AgentSnapshot>>();
  private commands: { skills: SkillsSnapshot; plugins: PluginSnapshot; commands: AgentCommands } | undefined;
  private closed = false;

  constructor(
    readonly config: Config,
    options: AgentRuntimeOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    const store = new ExtensionsStore(config.extensions_config);
    this.settings = new ExtensionsSettings(store);
    const watch = options.watch ?? true;
    this.plugins = new PluginSnapshotter({ pluginsDir: config.plugins.path, settings: this.settings, env: config.env, watch });
    const builtIn = defaultSkillSources(config.skills.path);
    this.skills = new SkillsSnapshotter({
      sources: async () => [...builtIn, ...(await this.plugins.snapshot()).skillSources],
      settings: this.settings,
      containerPath: config.skills.container_path,
      watch,
      onProblem: (problem) => this.logger.warn({ problem: problem.reason, file: problem.file, identity: problem.identity }, problem.message),
    });
    this.codeMode = new CodeModeRuntime(config, {
      servers: runtimeServerEntries(this.settings, this.plugins),
      logger: this.logger,
      ...(options.executor ? { executor: options.executor } : {}),
    });
    this.scriptTools = options.scriptTools;
  }

  get executor(): SandboxExecutor {
    return this.codeMode.executor;
  }

  /** The current snapshot of settings, skills, plugins and commands; also brings the MCP manager in line. */
  async snapshot(): Promise<AgentSnapshot> {
    const [settings, skills, plugins] = await Promise.all([this.settings.read(), this.skills.snapshot(), this.plugins.snapshot(), this.codeMode.refresh()]);
    const cached = this.commands;
    const commands = cached && cached.skills === skills && cached.plugins === plugins ? cached.commands : new AgentCommands(skills, plugins);
    this.commands = { skills, plugins, commands };
    return { settings, skills, plugins, commands };
  }

  /** One snapshot per request object: every provider of a run sees the same one. */
  snapshotFor(request: object): Promise<AgentSnapshot> {
    let snapshot = this.perRequest.get(request);
    if (!snapshot) {
      snapshot = this.snapshot();
      this.perRequest.set(request, snapshot);
    }
    return snapshot;
  }

  /** Stops MCP servers, sandbox workers and folder watchers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.skills.close();
    this.plugins.close();
    await this.codeMode.close();
  }
}
