import { AgentFolder } from "./agent-folder.js";
import { agentOverlay, agentOverlayOf } from "./agent-settings.js";
import { userAgentsFolder } from "./agent-sources.js";
import type { AgentDefinition, AgentProblem } from "./agent-types.js";
import type { AgentSettingsReader, AgentsSnapshot } from "./agents-snapshot.js";
import { folderDefinition } from "./agents-snapshotter.js";

export interface UserAgentViewsOptions {
  /** The shared agents with the administrator's defaults (an AgentsSnapshotter). */
  readonly snapshotter: { snapshot(): Promise<AgentsSnapshot> };
  /** extensions_config.json: `users.<id>.agents` is each user's overlay. */
  readonly settings: AgentSettingsReader;
  /** The agents folder (config.agents.path): a user's own agents live in `users/<folder>` under it (see userAgentsFolder). */
  readonly agentsRoot: string;
  /** Watch each user's folder with fs.watch (false re-lists it on every view). @default true */
  readonly watch?: boolean;
  /** How many users' views are kept; the least recently used beyond it is dropped (its watcher closed). @default 1000 */
  readonly maxUsers?: number;
  /** Every this many milliseconds a user's folder is re-listed whatever the watcher said. @default 30000 */
  readonly verifyIntervalMs?: number;
  /** Milliseconds clock for the verification interval. @default Date.now */
  readonly now?: () => number;
}

interface UserEntry {
  readonly folder: AgentFolder;
  base: AgentsSnapshot | undefined;
  view: AgentsSnapshot | undefined;
  overlayKey: string;
  revision: number | undefined;
  lastVerifiedAt: number;
  inflight: Promise<AgentsSnapshot> | undefined;
}

/**
 * Each user's agents: the shared snapshot with their enablement overlay
 * (`users.<id>.agents.<identity>.enabled` over the administrator's `agents`) and their own agents
 * (`agents/users/<folder>`, identities `user:<name>`) on top. A view is rebuilt only when the shared
 * snapshot, the user's overlay or their folder changed; otherwise the same frozen object comes back.
 * A user with neither an overlay nor agents of their own gets the shared snapshot itself, and so
 * does an anonymous caller. An agent switched off as a whole (its plugin is disabled) stays off
 * whatever the user chose.
 */
export class UserAgentViews {
  private readonly options: UserAgentViewsOptions;
  private readonly maxUsers: number;
  private readonly verifyIntervalMs: number;
  private readonly now: () => number;
  private readonly users = new Map<string, UserEntry>();

  constructor(options: UserAgentViewsOptions) {
    this.options = options;
    this.maxUsers = options.maxUsers ?? 1000;
    this.verifyIntervalMs = options.verifyIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The agents as `userId` sees them; undefined (anonymous, or the shared defaults) is the shared snapshot. */
  viewFor(userId: string | undefined): Promise<AgentsSnapshot> {
    if (userId === undefined) return this.options.snapshotter.snapshot();
    const entry = this.entryFor(userId);
    entry.inflight ??= this.refresh(userId, entry).finally(() => {
      entry.inflight = undefined;
    });
    return entry.inflight;
  }

  /** Stops every user folder's watcher. */
  close(): void {
    for (const entry of this.users.values()) entry.folder.close();
    this.users.clear();
  }

  private entryFor(userId: string): UserEntry {
    let entry = this.users.get(userId);
    if (entry) {
      this.users.delete(userId); // most recently used last: eviction takes the first
      this.users.set(userId, entry);
      return entry;
    }
    entry = {
      folder: new AgentFolder({ root: userAgentsFolder(this.options.agentsRoot, userId), watch: this.options.watch ?? true }),
      base: undefined,
      view: undefined,
      overlayKey: "",
      revision: undefined,
      lastVerifiedAt: Number.NEGATIVE_INFINITY,
      inflight: undefined,
    };
    this.users.set(userId, entry);
    while (this.users.size > this.maxUsers) {
      const [oldest, dropped] = this.users.entries().next().value as [string, UserEntry];
      dropped.folder.close();
      this.users.delete(oldest);
    }
    return entry;
  }

  private async refresh(userId: string, entry: UserEntry): Promise<AgentsSnapshot> {
    const base = await this.options.snapshotter.snapshot();
    const { document, revision } = await this.options.settings.read();
    const now = this.now();
    const verify = now - entry.lastVerifiedAt >= this.verifyIntervalMs;
    if (verify) entry.lastVerifiedAt = now;
    // A new revision may be an install or delete by the gateway: re-list the user's folder.
    const folderChanged = (verify || revision !== entry.revision || entry.folder.isDirty) && entry.folder.refresh();
    entry.revision = revision;
    const overlay = agentOverlayOf(document, userId);
    const overlayKey = overlay === undefined ? "" : JSON.stringify(overlay);
    if (entry.view && entry.base === base && !folderChanged && overlayKey === entry.overlayKey) return entry.view;
    entry.base = base;
    entry.overlayKey = overlayKey;
    entry.view = build(userId, entry.folder, base, overlay);
    return entry.view;
  }
}

function build(userId: string, folder: AgentFolder, base: AgentsSnapshot, overlay: unknown): AgentsSnapshot {
  const problems: AgentProblem[] = [];
  const choices = agentOverlay(overlay, userId, problems);
  problems.push(...folder.problems);
  if (choices.size === 0 && folder.agents.length === 0 && problems.length === 0) return base;
  const shared = base.agents.map((agent): AgentDefinition => {
    const choice = choices.get(agent.identity);
    if (choice === undefined || agent.disabledReason !== undefined || choice === agent.enabled) return agent;
    return Object.freeze({ ...agent, enabled: choice });
  });
  const own = folder.agents.map((agent): AgentDefinition => {
    const enabled = choices.get(`user:${agent.name}`) ?? true;
    return Object.freeze({ ...folderDefinition("user", agent), enabled, defaultEnabled: true });
  });
  return Object.freeze({ agents: Object.freeze([...shared, ...own]), problems: Object.freeze([...base.problems, ...problems]) });
}
