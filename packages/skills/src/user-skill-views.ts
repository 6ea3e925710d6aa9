import { compareSkills, mergeSkillLists } from "./merge-skill-lists.js";
import { renderSkillSystem } from "./render-skill-system.js";
import { resolveSkillPath, type ResolvedSkillPath } from "./resolve-skill-path.js";
import { SkillSearchIndex } from "./search/skill-search-index.js";
import { SkillSourceIndex } from "./skill-source-index.js";
import { userSkillSource } from "./skill-sources.js";
import type { Skill, SkillProblem, SkillSettingsDocument } from "./skill-types.js";
import type { SkillSettingsReader, SkillsSnapshot, SkillsSnapshotter } from "./skills-snapshotter.js";

export interface UserSkillViewsOptions {
  /** The shared catalog (public, custom, plugins) with the administrator's defaults: taken once per request, as before. */
  readonly snapshotter: Pick<SkillsSnapshotter, "snapshot">;
  /** extensions_config.json: `users.<id>.skills` is each user's overlay (a cached read costs one stat). */
  readonly settings: SkillSettingsReader;
  /** The skills folder (config.skills.path): a user's own skills live in `users/<folder>` under it (see userSkillsFolder). */
  readonly skillsRoot: string;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** Watch each user's folder with fs.watch (false re-lists it on every view). @default true */
  readonly watch?: boolean;
  /** How many users' views are kept; the least recently used beyond it is dropped (its watchers closed). @default 1000 */
  readonly maxUsers?: number;
  /** Every this many milliseconds a user's folder is walked whatever the watchers said. @default 30000 */
  readonly verifyIntervalMs?: number;
  /** Milliseconds clock for the verification interval. @default Date.now */
  readonly now?: () => number;
  /** Told about problems of a user's own skills and overlay when they first appear. */
  readonly onProblem?: (problem: SkillProblem) => void;
}

/** The file side of one view: what the sandbox's virtual folders need (`SkillFiles` of @thinktank/sandbox fits). */
export interface SkillViewFiles {
  snapshot(): Promise<SkillsSnapshot>;
  resolvePath(virtualPath: string): Promise<ResolvedSkillPath>;
}

interface UserEntry {
  readonly index: SkillSourceIndex;
  base: SkillsSnapshot | undefined;
  view: SkillsSnapshot | undefined;
  overlayKey: string;
  revision: number | undefined;
  lastVerifiedAt: number;
  version: number;
  reported: Set<string>;
  inflight: Promise<SkillsSnapshot> | undefined;
}

/**
 * Each user's view of skills: the shared snapshot with their enablement overlay
 * (`users.<id>.skills.<identity>.enabled` over the administrator's `skills`) and their own skills
 * (`skills/users/<folder>`, identities `user:<name>`, always untrusted) on top. A view is rebuilt
 * only when the shared snapshot, the user's overlay or their folder changed (the folder is
 * watched and re-listed on a new store revision, like the shared sources); otherwise the same
 * frozen object comes back. A user with neither an overlay nor skills of their own gets the
 * shared snapshot itself, and so does an anonymous caller.
 */
export class UserSkillViews {
  private readonly options: UserSkillViewsOptions;
  private readonly containerPath: string;
  private readonly maxUsers: number;
  private readonly verifyIntervalMs: number;
  private readonly now: () => number;
  private readonly users = new Map<string, UserEntry>();

  constructor(options: UserSkillViewsOptions) {
    this.options = options;
    this.containerPath = options.containerPath ?? "/mnt/skills";
    this.maxUsers = options.maxUsers ?? 1000;
    this.verifyIntervalMs = options.verifyIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The skills as `userId` sees them; undefined (anonymous, or the shared defaults) is the shared snapshot. */
  viewFor(userId: string | undefined): Promise<SkillsSnapshot> {
    if (userId === undefined) return this.options.snapshotter.snapshot();
    const entry = this.entryFor(userId);
    if (!entry.inflight) {
      entry.inflight = this.refresh(userId, entry).finally(() => {
        entry.inflight = undefined;
      });
    }
    return entry.inflight;
  }

  /** The view's files for the sandbox's `/mnt/skills`: only skills enabled in this user's view resolve. */
  filesFor(userId: string | undefined): SkillViewFiles {
    return {
      snapshot: () => this.viewFor(userId),
      resolvePath: async (virtualPath) => resolveSkillPath(virtualPath, (await this.viewFor(userId)).skills, { containerPath: this.containerPath }),
    };
  }

  /** Stops every user folder's watchers. */
  close(): void {
    for (const entry of this.users.values()) entry.index.close();
    this.users.clear();
  }

  private entryFor(userId: string): UserEntry {
    let entry = this.users.get(userId);
    if (entry) {
      // Most recently used last: eviction takes the first.
      this.users.delete(userId);
      this.users.set(userId, entry);
      return entry;
    }
    const source = userSkillSource(this.options.skillsRoot, userId);
    entry = {
      index: new SkillSourceIndex({ source, containerPath: this.containerPath, watch: this.options.watch ?? true }),
      base: undefined,
      view: undefined,
      overlayKey: "",
      revision: undefined,
      lastVerifiedAt: Number.NEGATIVE_INFINITY,
      version: 0,
      reported: new Set(),
      inflight: undefined,
    };
    this.users.set(userId, entry);
    while (this.users.size > this.maxUsers) {
      const [oldest, dropped] = this.users.entries().next().value as [string, UserEntry];
      dropped.index.close();
      this.users.delete(oldest);
    }
    return entry;
  }

  private async refresh(userId: string, entry: UserEntry): Promise<SkillsSnapshot> {
    const base = await this.options.snapshotter.snapshot();
    const settings = await this.options.settings.read();
    const now = this.now();
    const verify = now - entry.lastVerifiedAt >= this.verifyIntervalMs;
    // A new revision may be an install or delete by the gateway: re-list the user's folder.
    const mode = verify ? "full" : settings.revision !== entry.revision ? "roots" : "changes";
    const folderChanged = (mode !== "changes" || entry.index.isDirty) && (await entry.index.refresh(mode));
    if (verify) entry.lastVerifiedAt = now;
    entry.revision = settings.revision;
    const overlay = overlayOf(settings.document, userId);
    const overlayKey = overlay === undefined ? "" : JSON.stringify(overlay);
    if (entry.view && entry.base === base && !folderChanged && overlayKey === entry.overlayKey) return entry.view;
    entry.base = base;
    entry.overlayKey = overlayKey;
    entry.version += 1;
    entry.view = this.build(userId, entry, base, overlay);
    return entry.view;
  }

  private build(userId: string, entry: UserEntry, base: SkillsSnapshot, overlay: unknown): SkillsSnapshot {
    const problems: SkillProblem[] = [];
    const choices = readOverlay(userId, overlay, problems);
    const own = mergeSkillLists([entry.index.skills]);
    problems.push(...entry.index.problems, ...own.problems);
    this.report(entry, problems);
    if (choices.size === 0 && own.skills.length === 0 && problems.length === 0) return base;
    const shared = base.skills.map((skill): Skill => {
      const choice = choices.get(skill.identity);
      // A skill switched off as a whole (its plugin is disabled) stays off whatever the user chose.
      if (choice === undefined || skill.disabledReason !== undefined || choice === skill.enabled) return skill;
      return Object.freeze({ ...skill, enabled: choice, defaultEnabled: skill.enabled });
    });
    // A user's own skills are untrusted: only administrators decide trust.
    const mine = own.skills.map((skill): Skill => Object.freeze({ ...skill, enabled: choices.get(skill.identity) ?? true, trusted: false, scriptsApproved: false, defaultEnabled: true }));
    const skills = [...shared, ...mine].sort(compareSkills);
    return Object.freeze({
      skills: Object.freeze(skills),
      problems: Object.freeze([...base.problems, ...problems]),
      promptSection: renderSkillSystem(skills, { containerPath: this.containerPath }),
      search: new SkillSearchIndex(skills),
      version: base.version * 1_000_000 + entry.version,
      revision: base.revision,
      etag: base.etag,
    });
  }

  private report(entry: UserEntry, problems: readonly SkillProblem[]): void {
    const seen = new Set<string>();
    for (const problem of problems) {
      seen.add(problem.message);
      if (!entry.reported.has(problem.message)) this.options.onProblem?.(problem);
    }
    entry.reported = seen;
  }
}

/** `users.<id>.skills` of the document, or undefined. */
function overlayOf(document: SkillSettingsDocument, userId: string): unknown {
  const users = document.users;
  if (!users || typeof users !== "object" || !Object.hasOwn(users, userId)) return undefined;
  const user = users[userId];
  if (!user || typeof user !== "object") return undefined;
  return Object.hasOwn(user, "skills") ? (user as { skills?: unknown }).skills : undefined;
}

/** A user's choices by identity; malformed entries are problems and ignored. */
function readOverlay(userId: string, overlay: unknown, problems: SkillProblem[]): Map<string, boolean> {
  const choices = new Map<string, boolean>();
  if (overlay === undefined) return choices;
  if (!overlay || typeof overlay !== "object" || Array.isArray(overlay)) {
    problems.push({ reason: "ambiguous-setting", message: `extensions_config.json users["${userId}"].skills must be an object keyed by skill identity; ignored` });
    return choices;
  }
  for (const [identity, setting] of Object.entries(overlay)) {
    const enabled = typeof setting === "boolean" ? setting : setting && typeof setting === "object" ? (setting as { enabled?: unknown }).enabled : undefined;
    if (typeof enabled === "boolean") choices.set(identity, enabled);
    else problems.push({ reason: "ambiguous-setting", identity, message: `extensions_config.json users["${userId}"].skills["${identity}"] must be { "enabled": true | false }; ignored` });
  }
  return choices;
}
