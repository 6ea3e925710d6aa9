import { applySkillSettings, type SkillSourceSettings } from "./apply-skill-settings.js";
import { mergeSkillLists } from "./merge-skill-lists.js";
import { renderSkillSystem } from "./render-skill-system.js";
import { resolveSkillPath } from "./resolve-skill-path.js";
import type { ResolvedSkillPath } from "./resolve-skill-path.js";
import { SkillSearchIndex } from "./search/skill-search-index.js";
import { SkillSourceIndex } from "./skill-source-index.js";
import type { ParsedSkill, Skill, SkillProblem, SkillSettingsDocument, SkillSource } from "./skill-types.js";

/** Reads extensions_config.json: the core ExtensionsStore fits, and so does anything with this shape. */
export interface SkillSettingsReader {
  read(): Promise<{ readonly document: SkillSettingsDocument; readonly revision: number; readonly etag?: string }>;
}

/** Everything the agent needs about skills for one request. Immutable; shared until something changes. */
export interface SkillsSnapshot {
  /** Every loaded skill, enabled or not, in a deterministic order. */
  readonly skills: readonly Skill[];
  /** Skipped SKILL.md files, duplicates and settings that could not be applied. */
  readonly problems: readonly SkillProblem[];
  /** The `<skill_system>` prompt section ("" when no skill is available). */
  readonly promptSection: string;
  /** Search over the skills `promptSection` lists (enabled, model-invocable); indexed on its first search. */
  readonly search: SkillSearchIndex;
  /** Increases by one each time the snapshot is rebuilt. */
  readonly version: number;
  /** The extensions_config.json revision it was built from, and its ETag (for If-Match) when the reader gives one. */
  readonly revision: number;
  readonly etag: string | undefined;
}

export interface SkillsSnapshotterOptions {
  /**
   * The folders to search, or a function asked on every snapshot (it must be cheap): e.g.
   * `async () => [...defaultSkillSources(root), ...(await plugins.snapshot()).skillSources]`.
   * Sources that stay the same keep their index and watchers.
   */
  readonly sources: readonly SkillSource[] | (() => readonly SkillSource[] | Promise<readonly SkillSource[]>);
  readonly settings: SkillSettingsReader;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /**
   * Every this many milliseconds a snapshot walks all sources again whatever the watchers
   * said (a safety net for file systems where inotify misses changes, such as network
   * mounts). @default 30000
   */
  readonly verifyIntervalMs?: number;
  /** Watch skill folders with fs.watch; false walks every source on every snapshot. @default true */
  readonly watch?: boolean;
  /** Milliseconds clock for the verification interval. @default Date.now */
  readonly now?: () => number;
  /** Told about problems when they first appear (a skipped SKILL.md, a duplicate, ...), and about watch failures. */
  readonly onProblem?: (problem: SkillProblem) => void;
}

/** What identifies a source's index: the same key keeps its index (and watchers). */
function sourceKey(source: SkillSource): string {
  return `${source.category}\u0000${source.root}\u0000${source.containerPrefix}`;
}

/** Everything about the sources that changes a snapshot: their keys, whether each is switched off, its trust. */
function sourcesSignatureOf(sources: readonly SkillSource[]): string {
  return sources.map((source) => `${sourceKey(source)}\u0000${source.disabledReason ?? ""}\u0000${source.trusted === true}\u0000${source.scriptsApproved === true}`).join("\u0001");
}

/** The parts of a source its skills take (see applySkillSettings), or undefined when it sets none. */
function settingsOfSource(source: SkillSource | undefined): SkillSourceSettings | undefined {
  if (!source || (source.disabledReason === undefined && !source.trusted && !source.scriptsApproved)) return undefined;
  return { disabledReason: source.disabledReason, trusted: source.trusted, scriptsApproved: source.scriptsApproved };
}

/**
 * Keeps the skills and the `<skill_system>` section current at the cost of almost nothing
 * while nothing changes: a snapshot checks the watchers' dirty flags and the store's cached
 * read (one stat), and returns the same frozen object. A changed SKILL.md is re-read alone.
 * A new store revision (the gateway bumps it on every mutation, installs included) re-lists
 * the source folders; the verification interval walks all sources, re-reading only files
 * whose stat changed, in case a watcher missed something.
 */
export class SkillsSnapshotter {
  private readonly settings: SkillSettingsReader;
  private readonly containerPath: string;
  private readonly verifyIntervalMs: number;
  private readonly watch: boolean;
  private readonly now: () => number;
  private readonly onProblem: ((problem: SkillProblem) => void) | undefined;
  private indexes: SkillSourceIndex[] = [];
  private readonly sourcesProvider: (() => readonly SkillSource[] | Promise<readonly SkillSource[]>) | undefined;
  private sourcesSignature = "";
  /** The sources switched off as a whole (a disabled plugin's) or trusted as a whole (a trusted plugin's), by index. */
  private sourceSettings = new Map<SkillSourceIndex, SkillSourceSettings>();
  private current: SkillsSnapshot | undefined;
  private lastDocument: SkillSettingsDocument | undefined;
  private lastVerifiedAt = Number.NEGATIVE_INFINITY;
  private sourcesChanged = true;
  private reported = new Set<string>();
  private inflight: Promise<SkillsSnapshot> | undefined;

  constructor(options: SkillsSnapshotterOptions) {
    this.settings = options.settings;
    this.containerPath = options.containerPath ?? "/mnt/skills";
    this.verifyIntervalMs = options.verifyIntervalMs ?? 30_000;
    this.watch = options.watch ?? true;
    this.now = options.now ?? Date.now;
    this.onProblem = options.onProblem;
    if (typeof options.sources === "function") this.sourcesProvider = options.sources;
    else this.setSources(options.sources);
  }

  /** Replaces the sources (e.g. when plugins are enabled); unchanged sources keep their index. */
  setSources(sources: readonly SkillSource[]): void {
    const existing = new Map(this.indexes.map((index) => [sourceKey(index.source), index]));
    const next = sources.map((source) => {
      const reused = existing.get(sourceKey(source));
      existing.delete(sourceKey(source));
      return (
        reused ??
        new SkillSourceIndex({
          source,
          containerPath: this.containerPath,
          watch: this.watch,
          onWatchError: (error) =>
            this.onProblem?.({ reason: "unreadable", category: source.category, file: source.root, message: `${source.root}: cannot watch for changes (${error.message}); walking it on every snapshot instead` }),
        })
      );
    });
    for (const removed of existing.values()) removed.close();
    this.indexes = next;
    this.sourceSettings = new Map(next.flatMap((index, position) => {
      const settings = settingsOfSource(sources[position]);
      return settings === undefined ? [] : [[index, settings] as const];
    }));
    this.sourcesSignature = sourcesSignatureOf(sources);
    this.sourcesChanged = true;
  }

  /** The current snapshot; concurrent callers share one refresh. */
  snapshot(): Promise<SkillsSnapshot> {
    if (!this.inflight) {
      this.inflight = this.refresh().finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  /** Resolves a virtual `/mnt/skills/...` path against the current snapshot (see resolveSkillPath). */
  async resolvePath(virtualPath: string): Promise<ResolvedSkillPath> {
    const { skills } = await this.snapshot();
    return resolveSkillPath(virtualPath, skills, { containerPath: this.containerPath });
  }

  close(): void {
    for (const index of this.indexes) index.close();
    this.indexes = [];
  }

  private async refresh(): Promise<SkillsSnapshot> {
    // Let inotify events already queued reach the dirty flags. Two setImmediate hops always
    // straddle one poll phase of the event loop (one hop does not when called from the poll
    // phase itself), and the poll phase is where watch events are read.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.sourcesProvider) {
      const sources = await this.sourcesProvider();
      if (sourcesSignatureOf(sources) !== this.sourcesSignature) this.setSources(sources);
    }
    const settings = await this.settings.read();
    const now = this.now();
    const verify = !this.current || now - this.lastVerifiedAt >= this.verifyIntervalMs;
    // A new revision may mean an install or delete by another process: re-list the source folders.
    const mode = verify ? "full" : this.current && settings.revision !== this.current.revision ? "roots" : "changes";
    let changed = this.sourcesChanged || !this.current;
    this.sourcesChanged = false;
    for (const index of this.indexes) {
      if ((mode !== "changes" || index.isDirty) && (await index.refresh(mode))) changed = true;
    }
    if (verify) this.lastVerifiedAt = now;
    if (!changed && this.current && settings.document === this.lastDocument && settings.revision === this.current.revision && settings.etag === this.current.etag) {
      return this.current;
    }

    const merged = mergeSkillLists(this.indexes.map((index) => index.skills));
    const skillSources = new Map<ParsedSkill, SkillSourceSettings>();
    for (const [index, source] of this.sourceSettings) for (const skill of index.skills) skillSources.set(skill, source);
    const applied = applySkillSettings(merged.skills, settings.document, { source: (skill) => skillSources.get(skill) });
    const problems = [...this.indexes.flatMap((index) => index.problems), ...merged.problems, ...applied.problems];
    this.report(problems);
    this.lastDocument = settings.document;
    this.current = Object.freeze({
      skills: Object.freeze(applied.skills.map((skill) => Object.freeze(skill))),
      problems: Object.freeze(problems),
      promptSection: renderSkillSystem(applied.skills, { containerPath: this.containerPath }),
      search: new SkillSearchIndex(applied.skills),
      version: (this.current?.version ?? 0) + 1,
      revision: settings.revision,
      etag: settings.etag,
    });
    return this.current;
  }

  private report(problems: readonly SkillProblem[]): void {
    const seen = new Set<string>();
    for (const problem of problems) {
      seen.add(problem.message);
      if (!this.reported.has(problem.message)) this.onProblem?.(problem);
    }
    this.reported = seen;
  }
}
