import fs from "node:fs";
import path from "node:path";
import { readSkillSync } from "./read-skill.js";
import type { ReadSkillResult } from "./read-skill.js";
import type { ParsedSkill, SkillProblem, SkillSource } from "./skill-types.js";

export interface SkillSourceIndexOptions {
  readonly source: SkillSource;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /**
   * Watch every folder with fs.watch (inotify) so a refresh re-lists only folders that
   * changed. Without it (or when the system runs out of watches) every refresh walks the
   * whole source, which is correct but costs a readdir per folder and a stat per skill.
   * @default true
   */
  readonly watch?: boolean;
  /** Told once when watching fails and the index falls back to walking. */
  readonly onWatchError?: (error: Error) => void;
}

interface FolderState {
  children: Set<string>;
  watcher: fs.FSWatcher | undefined;
  /** Inode of the folder when its watcher started: a folder renamed into place is a new folder. */
  inode: number | undefined;
  /** mtime, ctime, size and inode of SKILL.md when it was last read. */
  signature: string | undefined;
  result: ReadSkillResult | undefined;
  problems: SkillProblem[];
}

/** Folders never searched: dot-folders (.git, .staging-*) and dependency caches. */
function isSkippedFolder(name: string): boolean {
  return name.startsWith(".") || name === "node_modules" || name === "__pycache__";
}

/**
 * The skills of one source, kept up to date cheaply. The first refresh walks the source;
 * afterwards a watcher on each folder marks it dirty, and a refresh re-lists only dirty
 * folders and re-reads a SKILL.md only when its stat signature changed. `refresh("full")`
 * walks everything again (the periodic verification): it re-reads nothing unchanged.
 */
export class SkillSourceIndex {
  readonly source: SkillSource;
  private readonly containerPath: string;
  private readonly watchEnabled: boolean;
  private readonly onWatchError: ((error: Error) => void) | undefined;
  private readonly folders = new Map<string, FolderState>();
  private readonly dirty = new Set<string>();
  /** Paths a watcher saw renamed (created, removed or replaced): dropped and re-walked on refresh. */
  private readonly renamed = new Set<string>();
  private watchFailed = false;
  private closed = false;
  private cachedSkills: ParsedSkill[] | undefined;
  private cachedProblems: SkillProblem[] | undefined;

  constructor(options: SkillSourceIndexOptions) {
    this.source = options.source;
    this.containerPath = options.containerPath ?? "/mnt/skills";
    this.watchEnabled = options.watch ?? true;
    this.onWatchError = options.onWatchError;
  }

  /** True when a watcher reported a change since the last refresh (or the index cannot rely on watchers). */
  get isDirty(): boolean {
    return this.dirty.size > 0 || !this.folders.has("") || this.watchFailed || !this.watchEnabled;
  }

  /**
   * Brings the index up to date; returns whether any skill or problem changed. `"changes"`
   * re-lists only what the watchers marked; `"roots"` also re-lists the source folder itself
   * (where installs and deletes happen); `"full"` walks everything, re-reading only files whose
   * stat changed. The file system calls are synchronous on purpose: each costs microseconds,
   * while an awaited call costs a thread-pool round trip, which made a walk of 1,000 skills ten
   * times slower (and much worse on a busy machine). A refresh after one edit makes three calls.
   */
  async refresh(mode: "changes" | "roots" | "full" = "changes"): Promise<boolean> {
    if (this.closed) return false;
    if (mode === "full" || !this.folders.has("") || this.watchFailed || !this.watchEnabled) {
      this.dirty.clear();
      this.renamed.clear();
      return this.scanFolder("", true);
    }
    let changed = false;
    if (mode === "roots") {
      this.dirty.add("");
      // A skill folder replaced by another (an overwrite install) has a new inode.
      for (const name of this.folders.get("")?.children ?? []) {
        const child = this.folders.get(name);
        if (child?.inode !== undefined && inodeOf(this.absolute(name)) !== child.inode && this.removeFolder(name)) changed = true;
      }
    }
    if (this.dirty.size === 0) return changed;
    // A folder renamed away or into place is dropped (with its watchers) and walked afresh
    // when its parent, which saw the rename, is re-listed below.
    for (const relative of this.renamed) if (relative !== "" && this.removeFolder(relative)) changed = true;
    this.renamed.clear();
    // Parents first: re-listing a parent may remove a dirty child altogether.
    const pending = [...this.dirty].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    this.dirty.clear();
    for (const relative of pending) {
      if (relative !== "" && !this.folders.has(relative)) continue;
      if (this.scanFolder(relative, false)) changed = true;
    }
    return changed;
  }

  /** Skills of this source in a stable order (by folder path). */
  get skills(): readonly ParsedSkill[] {
    if (!this.cachedSkills) {
      const skills: ParsedSkill[] = [];
      for (const state of this.folders.values()) if (state.result?.ok) skills.push(state.result.skill);
      this.cachedSkills = skills.sort((a, b) => compare(a.relativePath, b.relativePath));
    }
    return this.cachedSkills;
  }

  /** SKILL.md files skipped, and links not followed, in a stable order. */
  get problems(): readonly SkillProblem[] {
    if (!this.cachedProblems) {
      const problems: SkillProblem[] = [];
      for (const state of this.folders.values()) {
        if (state.result && !state.result.ok) problems.push(state.result.problem);
        problems.push(...state.problems);
      }
      this.cachedProblems = problems.sort((a, b) => compare(a.file ?? "", b.file ?? ""));
    }
    return this.cachedProblems;
  }

  close(): void {
    this.closed = true;
    for (const state of this.folders.values()) state.watcher?.close();
    this.folders.clear();
    this.dirty.clear();
    this.renamed.clear();
  }

  private absolute(relative: string): string {
    return relative === "" ? this.source.root : path.join(this.source.root, ...relative.split("/"));
  }

  /** Re-lists one folder; `deep` re-lists every known subfolder too (new ones always are). */
  private scanFolder(relative: string, deep: boolean): boolean {
    const dir = this.absolute(relative);
    let state = this.folders.get(relative);
    if (state && deep && this.watchEnabled && !this.watchFailed) {
      // The verification walk also catches a folder replaced behind a stale watcher.
      const inode = inodeOf(dir);
      if (inode !== state.inode) {
        state.watcher?.close();
        state.watcher = this.startWatcher(relative, dir);
        state.inode = inodeOf(dir);
      }
    }
    if (!state) {
      state = { children: new Set(), watcher: undefined, inode: undefined, signature: undefined, result: undefined, problems: [] };
      this.folders.set(relative, state);
      // Watch before listing, so nothing that happens after the listing goes unseen.
      state.watcher = this.startWatcher(relative, dir);
      if (state.watcher) state.inode = inodeOf(dir);
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      const hadContent = state.children.size > 0 || state.result !== undefined || state.problems.length > 0;
      this.removeFolder(relative);
      return hadContent;
    }
    let changed = false;
    const children = new Set<string>();
    const problems: SkillProblem[] = [];
    let hasSkillFile = false;
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!isSkippedFolder(entry.name)) children.add(entry.name);
      } else if (entry.name === "SKILL.md") {
        if (entry.isFile()) hasSkillFile = true;
        else problems.push(this.problem("symlink", path.join(dir, entry.name), "SKILL.md is not a regular file (links are not followed); skipped"));
      } else if (entry.isSymbolicLink() && !isSkippedFolder(entry.name)) {
        const target = path.join(dir, entry.name);
        if (isDirectory(target)) problems.push(this.problem("symlink", target, "a link to a folder is not followed; skills inside it are not loaded"));
      }
    }
    if (!sameProblems(state.problems, problems)) {
      state.problems = problems;
      changed = true;
    }
    for (const child of state.children) {
      if (!children.has(child) && this.removeFolder(join(relative, child))) changed = true;
    }
    const known = state.children;
    state.children = children;
    for (const child of children) {
      if ((deep || !known.has(child) || !this.folders.has(join(relative, child))) && this.scanFolder(join(relative, child), true)) changed = true;
    }
    if (this.refreshSkillFile(relative, dir, state, hasSkillFile)) changed = true;
    if (changed) this.invalidate();
    return changed;
  }

  private refreshSkillFile(relative: string, dir: string, state: FolderState, present: boolean): boolean {
    if (!present) {
      const had = state.result !== undefined;
      state.result = undefined;
      state.signature = undefined;
      return had;
    }
    const file = path.join(dir, "SKILL.md");
    if (relative === "" && !this.source.single) {
      const problem = this.problem("misplaced", file, "SKILL.md sits directly in the source folder; put each skill in a folder named after it");
      const had = state.result !== undefined && !state.result.ok && state.result.problem.reason === "misplaced";
      state.result = { ok: false, problem };
      return !had;
    }
    let signature: string;
    try {
      const stat = fs.statSync(file);
      signature = `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      signature = "missing";
    }
    if (signature === state.signature && state.result) return false;
    state.signature = signature;
    state.result = readSkillSync(this.source, relative, this.containerPath);
    return true;
  }

  private removeFolder(relative: string): boolean {
    const state = this.folders.get(relative);
    if (!state) return false;
    for (const child of state.children) this.removeFolder(join(relative, child));
    state.watcher?.close();
    this.folders.delete(relative);
    this.dirty.delete(relative);
    this.invalidate();
    return true;
  }

  private startWatcher(relative: string, dir: string): fs.FSWatcher | undefined {
    if (!this.watchEnabled || this.watchFailed) return undefined;
    try {
      const watcher = fs.watch(dir, { persistent: false }, (event, name) => {
        this.dirty.add(relative);
        if (event === "rename" && name) this.renamed.add(join(relative, name.toString()));
      });
      watcher.on("error", () => {
        // The folder went away, or inotify overflowed: re-list it (and thereby its parent's view).
        watcher.close();
        const state = this.folders.get(relative);
        if (state) state.watcher = undefined;
        this.dirty.add(relative);
        this.dirty.add(relative.includes("/") ? relative.slice(0, relative.lastIndexOf("/")) : "");
      });
      return watcher;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      this.watchFailed = true;
      this.onWatchError?.(error instanceof Error ? error : new Error(String(error)));
      return undefined;
    }
  }

  private problem(reason: SkillProblem["reason"], file: string, message: string): SkillProblem {
    return { reason, category: this.source.category, file, message: `${file}: ${message}` };
  }

  private invalidate(): void {
    this.cachedSkills = undefined;
    this.cachedProblems = undefined;
  }
}

function join(parent: string, child: string): string {
  return parent === "" ? child : `${parent}/${child}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function inodeOf(dir: string): number | undefined {
  try {
    return fs.statSync(dir).ino;
  } catch {
    return undefined;
  }
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function sameProblems(a: readonly SkillProblem[], b: readonly SkillProblem[]): boolean {
  return a.length === b.length && a.every((problem, i) => problem.message === b[i]?.message);
}
