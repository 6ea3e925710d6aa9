import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ThinktankError, defaultArchiveLimits, type ArchiveLimits, type Caller } from "@thinktank/core";
import { AgentSearchIndex } from "@thinktank/skills";
import { customAgentsFolder, userAgentsFolder } from "./agent-sources.js";
import type { AgentDefinition, AgentProblem } from "./agent-types.js";
import type { AgentPlugin, AgentSettingsReader, AgentsSnapshot } from "./agents-snapshot.js";
import { AgentsSnapshotter } from "./agents-snapshotter.js";
import { findAgent } from "./find-agent.js";
import { installAgents, type AgentPackageSource } from "./install-agents.js";
import { readAgentPrompt } from "./read-agent-prompt.js";
import { UserAgentViews } from "./user-agent-views.js";

/**
 * Who asks: a `user` reads their own view (the defaults under their overlay, plus their own
 * agents), changes only their overlay and installs into and deletes from their own folder; an
 * `admin` reads and sets the defaults and installs `custom:` agents. Undefined: an anonymous read
 * sees the defaults; the CLI acts as the operator.
 */
export type AgentViewer = Pick<Caller, "id" | "role"> | undefined;

type EnabledEntry = { enabled: boolean; [key: string]: unknown };
type UserEntry = { agents?: Record<string, EnabledEntry>; [key: string]: unknown };

/** The part of the extensions store the service writes (the core ExtensionsStore fits). */
export interface AgentSettingsStore extends AgentSettingsReader {
  update<T>(mutate: (draft: { agents?: Record<string, EnabledEntry>; users?: Record<string, UserEntry> }) => T | Promise<T>): Promise<unknown>;
}

export interface AgentsServiceOptions {
  /** The agents folder (config.agents.path): `custom/` and `users/<folder>` under it. */
  readonly agentsRoot: string;
  readonly store: AgentSettingsStore;
  /** Every installed plugin's agents, a disabled plugin's with `disabledReason` (PluginManager.agentPlugins). @default none */
  readonly plugins?: () => readonly AgentPlugin[] | Promise<readonly AgentPlugin[]>;
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** Watch the folders (false re-lists them on every read). @default true */
  readonly watch?: boolean;
  /** Told about problems of the shared agents when they first appear. */
  readonly onProblem?: (problem: AgentProblem) => void;
}

/** An installed agent as the install answers it: the definition, and what the lenient reading accepted. */
export interface InstalledAgent {
  readonly agent: AgentDefinition;
  readonly warnings: readonly AgentProblem[];
}

/**
 * What the gateway and the CLI do with agents: list (with a search over names and descriptions),
 * get (with the prompt), enable or disable (the default, or a user's overlay), install agent files
 * (`custom:` for administrators, a user's own `user:`), delete a custom agent or a user's own.
 * Changes run one at a time and each bumps the store's revision, so the agent server's
 * snapshotter re-lists on its next request.
 */
export class AgentsService {
  private readonly options: AgentsServiceOptions;
  private readonly snapshotter: AgentsSnapshotter;
  /** Each user's view over the shared agents; `close()` closes it. */
  readonly views: UserAgentViews;
  private readonly searches = new WeakMap<AgentsSnapshot, AgentSearchIndex>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: AgentsServiceOptions) {
    this.options = options;
    const watch = options.watch ?? true;
    this.snapshotter = new AgentsSnapshotter({ agentsRoot: options.agentsRoot, settings: options.store, ...(options.plugins ? { plugins: options.plugins } : {}), watch, ...(options.onProblem ? { onProblem: options.onProblem } : {}) });
    this.views = new UserAgentViews({ snapshotter: this.snapshotter, settings: options.store, agentsRoot: options.agentsRoot, watch });
  }

  /** Every agent as `viewer` sees it (disabled ones with `enabled: false`). */
  list(viewer?: AgentViewer): Promise<AgentsSnapshot> {
    return this.views.viewFor(userOf(viewer));
  }

  /** The agents of `viewer`'s view matching `query` on name and description (skills' search engine), best first, with their score. */
  async search(query: string, options: { readonly viewer?: AgentViewer; readonly limit?: number } = {}): Promise<{ agent: AgentDefinition; score: number }[]> {
    const snapshot = await this.list(options.viewer);
    let index = this.searches.get(snapshot);
    if (!index) {
      index = new AgentSearchIndex(snapshot.agents);
      this.searches.set(snapshot, index);
    }
    const byIdentity = new Map(snapshot.agents.map((agent) => [agent.identity, agent]));
    return index.search(query, { limit: options.limit ?? 50 }).flatMap((hit) => {
      const agent = byIdentity.get(hit.identity);
      return agent ? [{ agent, score: hit.score }] : [];
    });
  }

  /** One agent of `viewer`'s view by identity or name, disabled or not. */
  async get(nameOrIdentity: string, viewer?: AgentViewer): Promise<AgentDefinition> {
    return findAgent(await this.list(viewer), nameOrIdentity, { includeDisabled: true });
  }

  /** The agent's system prompt (its file's body, or a built-in's). */
  prompt(agent: AgentDefinition): Promise<string> {
    return readAgentPrompt(agent);
  }

  /**
   * Writes `enabled`: an administrator's (or the operator's) to `agents["<identity>"]`, the
   * default; a user's to their overlay `users["<id>"].agents["<identity>"]`, for them alone.
   * An agent switched off as a whole (its plugin is disabled) stays off whatever is written.
   */
  async setEnabled(nameOrIdentity: string, enabled: boolean, viewer?: AgentViewer): Promise<AgentDefinition> {
    return this.serialize(async () => {
      const agent = await this.get(nameOrIdentity, viewer);
      const user = userOf(viewer);
      await this.options.store.update((draft) => {
        if (user === undefined) {
          draft.agents ??= {};
          const previous = draft.agents[agent.identity];
          draft.agents[agent.identity] = { ...(previous && typeof previous === "object" ? previous : {}), enabled };
          return;
        }
        draft.users ??= {};
        const entry: UserEntry = draft.users[user] && typeof draft.users[user] === "object" ? draft.users[user] : {};
        const overlay = entry.agents && typeof entry.agents === "object" ? entry.agents : {};
        draft.users[user] = { ...entry, agents: { ...overlay, [agent.identity]: { enabled } } };
      });
      return this.get(agent.identity, viewer);
    });
  }

  /**
   * Installs agent files (see installAgents): an administrator's go to `agents/custom`
   * (`custom:<name>`); a user's to their own folder (`user:<name>`, theirs alone), and only from an
   * upload (a path on the server is FORBIDDEN for them).
   */
  install(source: AgentPackageSource, options: { readonly overwrite?: boolean; readonly viewer?: AgentViewer } = {}): Promise<InstalledAgent[]> {
    const user = userOf(options.viewer);
    if (user !== undefined && source.kind === "path") {
      throw new ThinktankError("FORBIDDEN", "installing from a path on the server is an administrator's decision: upload the agent file or a zip of them");
    }
    return this.serialize(async () => {
      const targetRoot = this.rootFor(user);
      const sourceName = user === undefined ? "custom" : "user";
      const before = await this.list(options.viewer);
      const installed = await installAgents({
        targetRoot,
        source,
        ...(options.overwrite ? { overwrite: true } : {}),
        limits: this.options.limits ?? defaultArchiveLimits,
        identityTaken: (name) => {
          const other = before.agents.find((agent) => agent.identity === `${sourceName}:${name}`);
          return other?.file && path.resolve(other.file) !== path.join(targetRoot, `${name}.md`) ? `${other.identity} is already defined by another file; choose another name or delete that agent first` : undefined;
        },
      });
      await this.bumpRevision();
      const after = await this.list(options.viewer);
      return installed.map(({ agent, warnings }) => ({ agent: findAgent(after, `${sourceName}:${agent.name}`, { includeDisabled: true }), warnings }));
    });
  }

  /**
   * Deletes an installed agent's file and the settings about it: administrators delete `custom:`
   * agents, a user only their own `user:` agents. Built-in and plugin agents are FORBIDDEN
   * (disable them, or the plugin).
   */
  remove(nameOrIdentity: string, viewer?: AgentViewer): Promise<AgentDefinition> {
    return this.serialize(async () => {
      const agent = await this.get(nameOrIdentity, viewer);
      const user = userOf(viewer);
      const deletable = user === undefined ? "custom" : "user";
      if (agent.source !== deletable || agent.file === undefined) {
        const why = agent.source === "builtin" ? "is built in" : agent.source === "plugin" ? `belongs to the plugin '${agent.plugin}'` : user === undefined ? "is not a custom agent" : "is not one of your own agents";
        throw new ThinktankError("FORBIDDEN", `${agent.identity} ${why}; disable it instead`);
      }
      const root = this.rootFor(user);
      const relative = path.relative(root, agent.file);
      if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative) || relative.includes(path.sep)) throw new ThinktankError("FORBIDDEN", `${agent.identity} is not inside ${root}`);
      const doomed = await fs.mkdtemp(path.join(root, ".staging-delete-"));
      try {
        await fs.rename(agent.file, path.join(doomed, "agent.md"));
      } finally {
        fsSync.rmSync(doomed, { recursive: true, force: true });
      }
      await this.options.store.update((draft) => {
        if (user === undefined) {
          if (draft.agents) delete draft.agents[agent.identity];
        } else {
          const overlay = draft.users?.[user]?.agents;
          if (overlay && typeof overlay === "object") delete overlay[agent.identity];
        }
      });
      return agent;
    });
  }

  /** Forgets a removed user: their own agents' folder and their choices (`users["<id>"].agents`). */
  forgetUser(userId: string): Promise<void> {
    return this.serialize(async () => {
      await fs.rm(userAgentsFolder(this.options.agentsRoot, userId), { recursive: true, force: true });
      await this.options.store.update((draft) => {
        const entry = draft.users?.[userId];
        if (entry && typeof entry === "object") delete entry.agents;
      });
    });
  }

  /** Stops the folders' watchers. */
  close(): void {
    this.views.close();
    this.snapshotter.close();
  }

  private rootFor(user: string | undefined): string {
    return user === undefined ? customAgentsFolder(this.options.agentsRoot) : userAgentsFolder(this.options.agentsRoot, user);
  }

  /** Every change bumps the store's revision: the agent server re-lists the folders on its next request. */
  private async bumpRevision(): Promise<void> {
    await this.options.store.update(() => undefined);
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The id whose view applies: a `user`'s; administrators and anonymous callers see the defaults. */
function userOf(viewer: AgentViewer): string | undefined {
  return viewer?.role === "user" ? viewer.id : undefined;
}
