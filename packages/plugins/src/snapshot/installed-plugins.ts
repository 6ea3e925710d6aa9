import fs from "node:fs";
import path from "node:path";
import { loadPlugin } from "../load-plugin.js";
import type { LoadedPlugin } from "../plugin-types.js";
import { installedPluginsDir } from "../install/plugin-paths.js";

export interface InstalledPluginsOptions {
  /** config.plugins.path (plugins live in `<pluginsDir>/installed/<name>`). */
  readonly pluginsDir: string;
  /** Watch installed/ (recursively) so unchanged plugins are never read again. @default true */
  readonly watch?: boolean;
  /** Even with a healthy watcher, re-check every plugin's files this often. @default 30000 */
  readonly verifyIntervalMs?: number;
  /** Milliseconds clock. @default Date.now */
  readonly now?: () => number;
}

interface Entry {
  readonly signature: string;
  readonly plugin: LoadedPlugin;
}

/**
 * The plugins under installed/, loaded once and kept current cheaply: a recursive watcher marks
 * the folders that changed and only those are read again; a verification pass (on request, on
 * the interval, or always when watching is off or failed) compares each folder's stat signature
 * (paths, sizes, mtimes, inodes) and reloads only what differs. Folder names are the plugins'
 * identities: a manifest naming the plugin otherwise is reported as an error problem.
 */
export class InstalledPlugins {
  private readonly dir: string;
  private readonly watchEnabled: boolean;
  private readonly verifyIntervalMs: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  private watcher: fs.FSWatcher | undefined;
  private watchFailed = false;
  private listDirty = true;
  private lastVerifiedAt = Number.NEGATIVE_INFINITY;
  private cached: readonly LoadedPlugin[] | undefined;
  private changes = 0;

  constructor(options: InstalledPluginsOptions) {
    this.dir = installedPluginsDir(options.pluginsDir);
    this.watchEnabled = options.watch ?? true;
    this.verifyIntervalMs = options.verifyIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** Increases whenever the list or any plugin in it changed. */
  get version(): number {
    return this.changes;
  }

  /** True when the next `list()` has work to do (a watcher saw a change, or watching is not possible). */
  get isDirty(): boolean {
    return this.listDirty || this.dirty.size > 0 || this.watchFailed || !this.watchEnabled || this.now() - this.lastVerifiedAt >= this.verifyIntervalMs;
  }

  /** Every installed plugin (valid or not), sorted by name. `verify` forces the stat comparison of every folder. */
  list(options: { verify?: boolean } = {}): readonly LoadedPlugin[] {
    const verify = options.verify === true || this.listDirty || this.watchFailed || !this.watchEnabled || this.now() - this.lastVerifiedAt >= this.verifyIntervalMs;
    if (!verify && this.dirty.size === 0 && this.cached) return this.cached;
    this.ensureWatcher();
    let changed = false;
    if (verify) {
      this.listDirty = false;
      this.dirty.clear();
      this.lastVerifiedAt = this.now();
      const names = this.folderNames();
      for (const name of [...this.entries.keys()]) {
        if (!names.includes(name)) {
          this.entries.delete(name);
          changed = true;
        }
      }
      for (const name of names) if (this.refresh(name)) changed = true;
    } else {
      const pending = [...this.dirty];
      this.dirty.clear();
      for (const name of pending) if (this.refresh(name)) changed = true;
    }
    if (changed || !this.cached) {
      this.changes++;
      this.cached = [...this.entries.keys()].sort().map((name) => this.entries.get(name)!.plugin);
    }
    return this.cached;
  }

  /** Tells the cache a folder changed (this process just installed or removed it), without waiting for the watcher. */
  markChanged(name: string): void {
    this.listDirty = true;
    this.dirty.add(name);
  }

  /** One installed plugin by name (its folder's name). */
  get(name: string): LoadedPlugin | undefined {
    return this.list().find((plugin) => plugin.name === name);
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Reloads one folder when its signature changed; drops it when it is gone. Returns whether anything changed. */
  private refresh(name: string): boolean {
    const root = path.join(this.dir, name);
    const signature = signatureOf(root);
    const previous = this.entries.get(name);
    if (signature === undefined) return this.entries.delete(name);
    if (previous && previous.signature === signature) return false;
    this.entries.set(name, { signature, plugin: loadInstalled(root, name) });
    return true;
  }

  private folderNames(): string[] {
    try {
      return fs
        .readdirSync(this.dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
        .map((entry) => entry.name)
        .sort();
    } catch {
      return [];
    }
  }

  private ensureWatcher(): void {
    if (!this.watchEnabled || this.watcher || this.watchFailed) return;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      // Watch before reading, so a change made while reading is seen.
      this.watcher = fs.watch(this.dir, { recursive: true, persistent: false }, (_event, file) => {
        const relative = file ? file.toString() : "";
        const top = relative.split(/[\\/]/)[0] ?? "";
        if (top === "" || top === relative) this.listDirty = true;
        if (top !== "") this.dirty.add(top);
      });
      this.watcher.on("error", () => {
        this.watcher?.close();
        this.watcher = undefined;
        this.watchFailed = true;
      });
    } catch {
      this.watchFailed = true;
    }
  }
}

/** Loads an installed plugin under its folder's name. */
function loadInstalled(root: string, folder: string): LoadedPlugin {
  const plugin = loadPlugin(root, { fallbackName: folder });
  if (plugin.name === folder) return plugin;
  return {
    ...loadPlugin(root, { fallbackName: folder, name: folder }),
    problems: [
      ...plugin.problems,
      { severity: "error", file: ".claude-plugin/plugin.json", message: `the manifest names the plugin '${plugin.name}' but it is installed as '${folder}'` },
    ],
  };
}

/** Paths, sizes, mtimes and inodes of everything in a folder, or undefined when it is gone. */
function signatureOf(root: string): string | undefined {
  const parts: string[] = [];
  const walk = (dir: string, relative: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const child = path.join(dir, entry.name);
      const childRelative = `${relative}/${entry.name}`;
      const stat = fs.lstatSync(child);
      parts.push(`${childRelative}:${stat.size}:${stat.mtimeMs}:${stat.ino}`);
      if (entry.isDirectory()) walk(child, childRelative);
    }
  };
  try {
    const stat = fs.statSync(root);
    if (!stat.isDirectory()) return undefined;
    parts.push(`:${stat.mtimeMs}:${stat.ino}`);
    walk(root, "");
  } catch {
    return undefined;
  }
  return parts.join("\n");
}
