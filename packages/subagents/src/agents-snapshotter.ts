import path from "node:path";
import { AgentFolder, type FolderAgent } from "./agent-folder.js";
import { agentDefaults } from "./agent-settings.js";
import { customAgentsFolder } from "./agent-sources.js";
import type { AgentDefinition, AgentProblem, ParsedAgent } from "./agent-types.js";
import type { AgentPlugin, AgentSettingsDocument, AgentSettingsReader, AgentsSnapshot } from "./agents-snapshot.js";
import { builtinAgents } from "./builtin-agents.js";

export interface AgentsSnapshotterOptions {
  /** The agents folder (config.agents.path): installed agents are read from `custom/` under it. */
  readonly agentsRoot: string;
  /** extensions_config.json (`agents.<identity>.enabled` are the defaults). */
  readonly settings: AgentSettingsReader;
  /**
   * The plugins whose agents are listed, asked on every snapshot (it must be cheap, e.g.
   * `async () => (await plugins.snapshot()).plugins`): the same plugin objects keep the same agents.
   * @default none
   */
  readonly plugins?: () => readonly AgentPlugin[] | Promise<readonly AgentPlugin[]>;
  /** @default builtinAgents */
  readonly builtins?: readonly AgentDefinition[];
  /** Watch the custom folder with fs.watch; false re-lists it on every snapshot. @default true */
  readonly watch?: boolean;
  /** Every this many milliseconds a snapshot re-lists the folder whatever the watcher said. @default 30000 */
  readonly verifyIntervalMs?: number;
  /** Milliseconds clock for the verification interval. @default Date.now */
  readonly now?: () => number;
  /** Told about problems when they first appear. */
  readonly onProblem?: (problem: AgentProblem) => void;
}

/** What a snapshot was built from: the same parts give the same snapshot. */
interface BuiltFrom {
  readonly document: AgentSettingsDocument;
  readonly revision: number;
  readonly plugins: readonly AgentPlugin[];
}

/**
 * The shared agents (built-ins, the plugins', the project's `custom/`) with the administrator's
 * defaults, current for almost nothing while nothing changes: a snapshot reads the store (a cached
 * read), asks for the plugins (the same objects while they did not change) and checks the custom
 * folder's watcher, and returns the same frozen object. A new store revision (every install,
 * delete and setting makes one) or the verification interval re-lists the folder.
 * Each user's view goes on top of it (UserAgentViews).
 */
export class AgentsSnapshotter {
  private readonly options: AgentsSnapshotterOptions;
  private readonly folder: AgentFolder;
  private readonly verifyIntervalMs: number;
  private readonly now: () => number;
  private current: AgentsSnapshot | undefined;
  private builtFrom: BuiltFrom | undefined;
  private lastVerifiedAt = Number.NEGATIVE_INFINITY;
  private reported = new Set<string>();
  private inflight: Promise<AgentsSnapshot> | undefined;

  constructor(options: AgentsSnapshotterOptions) {
    this.options = options;
    this.folder = new AgentFolder({ root: customAgentsFolder(options.agentsRoot), watch: options.watch ?? true });
    this.verifyIntervalMs = options.verifyIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The current snapshot; concurrent callers share one refresh. */
  snapshot(): Promise<AgentsSnapshot> {
    this.inflight ??= this.refresh().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  close(): void {
    this.folder.close();
  }

  private async refresh(): Promise<AgentsSnapshot> {
    // Let fs.watch events already queued reach the dirty flag (two hops straddle one poll phase).
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const plugins = this.options.plugins ? await this.options.plugins() : [];
    const { document, revision } = await this.options.settings.read();
    const now = this.now();
    const built = this.builtFrom;
    const relist = !built || revision !== built.revision || now - this.lastVerifiedAt >= this.verifyIntervalMs || this.folder.isDirty;
    if (now - this.lastVerifiedAt >= this.verifyIntervalMs) this.lastVerifiedAt = now;
    const folderChanged = relist && this.folder.refresh();
    if (this.current && built && !folderChanged && document === built.document && revision === built.revision && samePlugins(plugins, built.plugins)) return this.current;
    this.current = this.build(plugins, document);
    this.builtFrom = { document, revision, plugins: [...plugins] };
    return this.current;
  }

  private build(plugins: readonly AgentPlugin[], document: AgentSettingsDocument): AgentsSnapshot {
    const problems: AgentProblem[] = [];
    const defaults = agentDefaults(document, problems);
    const definitions: AgentDefinition[] = [];
    const add = (definition: Omit<AgentDefinition, "enabled" | "defaultEnabled">, switchedOff?: string): void => {
      const enabled = switchedOff === undefined && (defaults.get(definition.identity) ?? true);
      definitions.push(Object.freeze({ ...definition, enabled, defaultEnabled: enabled, ...(switchedOff === undefined ? {} : { disabledReason: switchedOff }) }));
    };
    for (const builtin of this.options.builtins ?? builtinAgents) add(builtin);
    for (const plugin of [...plugins].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      for (const agent of plugin.agents) add(pluginDefinition(plugin, agent), plugin.disabledReason);
    }
    for (const agent of this.folder.agents) add(folderDefinition("custom", agent));
    problems.push(...this.folder.problems.map((problem) => ({ ...problem, file: `custom/${problem.file}` })));
    this.report(problems);
    return Object.freeze({ agents: Object.freeze(definitions), problems: Object.freeze(problems) });
  }

  private report(problems: readonly AgentProblem[]): void {
    const seen = new Set<string>();
    for (const problem of problems) {
      const key = `${problem.file}\u0000${problem.message}`;
      seen.add(key);
      if (!this.reported.has(key)) this.options.onProblem?.(problem);
    }
    this.reported = seen;
  }
}

function samePlugins(a: readonly AgentPlugin[], b: readonly AgentPlugin[]): boolean {
  return a.length === b.length && a.every((plugin, index) => plugin === b[index] || (plugin.agents === b[index]!.agents && plugin.root === b[index]!.root && plugin.name === b[index]!.name && plugin.disabledReason === b[index]!.disabledReason));
}

/** A plugin's agent as a definition (`plugin:<plugin>:<name>`; its file absolute). */
export function pluginDefinition(plugin: AgentPlugin, agent: ParsedAgent): Omit<AgentDefinition, "enabled" | "defaultEnabled"> {
  return {
    identity: `plugin:${plugin.name}:${agent.name}`,
    name: agent.name,
    source: "plugin",
    plugin: plugin.name,
    description: agent.description,
    ...(agent.tools ? { tools: agent.tools } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    file: path.join(plugin.root, ...agent.file.split("/")),
    frontmatter: agent.frontmatter,
  };
}

/** An agent of the project's folder or a user's (`custom:<name>`, `user:<name>`). */
export function folderDefinition(source: "custom" | "user", agent: FolderAgent): Omit<AgentDefinition, "enabled" | "defaultEnabled"> {
  return {
    identity: `${source}:${agent.name}`,
    name: agent.name,
    source,
    description: agent.description,
    ...(agent.tools ? { tools: agent.tools } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    file: agent.absolute,
    frontmatter: agent.frontmatter,
  };
}
