import fs from "node:fs";
import path from "node:path";
import { copyFolder, defaultArchiveLimits, extractZip, ThinktankError, type ArchiveLimits, type ExtensionsStore } from "@thinktank/core";
import { assertPluginValid, describeProblem, loadPlugin } from "../load-plugin.js";
import type { LoadedPlugin, PluginManifest, PluginProblem } from "../plugin-types.js";
import { entryManifest } from "../marketplace/entry-manifest.js";
import { defaultSourceResolvers, resolveMarketplacePlugin, type PluginSourceResolvers } from "../marketplace/plugin-source-resolvers.js";
import { readMarketplace, type MarketplaceEntry } from "../marketplace/read-marketplace.js";
import { manifestFile, readPluginManifest } from "../manifest/read-plugin-manifest.js";
import { isValidPluginName } from "../manifest/plugin-name.js";
import { hasPluginMarkers, isArchiveJunk, locatePluginRoot } from "./locate-plugin-root.js";
import { placePlugin } from "./place-plugin.js";
import { forgetPreviousVersion, keepPreviousVersion, rollbackPlugin } from "./plugin-rollback.js";
import { installedPluginsDir, stagingDir } from "./plugin-paths.js";

export interface PluginInstallerOptions {
  /** config.plugins.path: plugins are installed into `<pluginsDir>/installed/<name>`. */
  readonly pluginsDir: string;
  /** The extensions store: every install and uninstall bumps its revision. */
  readonly store: Pick<ExtensionsStore, "update">;
  /** Limits for archives and copied folders. @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /** Marketplace source type → resolver. @default only relative sources */
  readonly sourceResolvers?: PluginSourceResolvers;
}

/** How a plugin was installed. */
export type PluginInstallSource =
  | { readonly type: "archive"; readonly fileName?: string }
  | { readonly type: "path"; readonly path: string }
  | {
      readonly type: "marketplace";
      /** The marketplace.json read. */
      readonly marketplace: string;
      readonly marketplaceName: string;
      readonly plugin: string;
      readonly sourceType: string;
      /** The git commit, or npm version and integrity, installed (a relative source: the marketplace's). */
      readonly pinned?: { readonly commit?: string; readonly integrity?: string; readonly version?: string };
    };

/** What the store keeps of a plugin installed from a marketplace added by name: enough to update it. */
export interface PluginInstallRecord {
  readonly marketplace: string;
  readonly plugin: string;
  readonly source_type: string;
  readonly commit?: string;
  readonly integrity?: string;
  readonly version?: string;
}

/** Which marketplace, added by name, a marketplace install comes from (it is recorded, so the plugin can be updated). */
export interface MarketplaceInstallOptions extends PluginInstallOptions {
  /** The marketplace's name in the store's `marketplaces`. */
  readonly marketplaceName?: string;
  /** The marketplace's own pin (its commit), recorded for a plugin whose source is inside it. */
  readonly marketplacePinned?: { readonly commit?: string; readonly integrity?: string };
}

/** How strictly to read what is installed. */
export interface PluginInstallOptions {
  /**
   * Refuse what only the lenient reading accepts (problems marked `lenient`: departures from the
   * Agent Skills spec, YAML read line by line, links copied, a skills path naming one skill), for
   * authors who want the strict verdict. @default false: installed, with those as warnings
   */
  readonly strict?: boolean;
  /**
   * Record the plugin as trusted (`plugins.<name>.trusted`: an administrator's decision). A new
   * install is otherwise untrusted, whatever an earlier plugin of that name was; an update keeps
   * the plugin's trust and approval. @default false
   */
  readonly trusted?: boolean;
}

/** What PUT /api/plugins/:name changes: each field given is written to the plugin's entry. */
export interface PluginSettingsChange {
  readonly enabled?: boolean;
  readonly trusted?: boolean;
  /** Written as `scripts_approved`. */
  readonly scriptsApproved?: boolean;
}

export interface PluginInstallResult {
  /** The plugin as installed (root is its folder under installed/). */
  readonly plugin: LoadedPlugin;
  readonly enabled: true;
  readonly source: PluginInstallSource;
  /** Warnings about the plugin (errors refuse the install). */
  readonly warnings: readonly PluginProblem[];
}

/**
 * Installs, enables, disables and removes plugins. An install is staged in a temporary folder
 * beside installed/ (same file system), extracted or copied under the archive safety rules,
 * validated completely, then renamed into installed/<name> while the store records it as
 * enabled (under the store's cross-process lock); any failure leaves nothing behind.
 */
export class PluginInstaller {
  private readonly options: PluginInstallerOptions;
  private readonly limits: ArchiveLimits;

  constructor(options: PluginInstallerOptions) {
    this.options = options;
    this.limits = options.limits ?? defaultArchiveLimits;
  }

  /** Installs an uploaded zip. `fileName` names the plugin when it has no manifest and no single top folder. */
  installArchive(archive: Buffer, fileName?: string, options: PluginInstallOptions = {}): Promise<PluginInstallResult> {
    const fallback = fileName ? path.basename(fileName).replace(/\.(zip|plugin)$/i, "") : "plugin";
    return this.install({ type: "archive", ...(fileName ? { fileName } : {}) }, fallback, (content) => extractZip(archive, content, { limits: this.limits, skip: isArchiveJunk }), { locate: true, ...options });
  }

  /** Installs from a folder or a .zip file on the server. A link inside a folder to a file or folder inside it is installed as a copy of its target. */
  async installPath(location: string, options: PluginInstallOptions = {}): Promise<PluginInstallResult> {
    const absolute = path.resolve(location);
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(absolute);
    } catch {
      throw new ThinktankError("NOT_FOUND", `no file or folder at ${absolute}`);
    }
    const source: PluginInstallSource = { type: "path", path: absolute };
    if (stat.isDirectory()) return this.install(source, path.basename(absolute), (content) => this.copyTree(absolute, content), { locate: false, ...options });
    const fallback = path.basename(absolute).replace(/\.(zip|plugin)$/i, "");
    return this.install(source, fallback, (content) => extractZip(absolute, content, { limits: this.limits, skip: isArchiveJunk }), { locate: true, ...options });
  }

  /** Installs the entry `pluginName` of a marketplace (the path of its marketplace.json or of its folder). */
  installFromMarketplace(marketplacePath: string, pluginName: string, options: MarketplaceInstallOptions = {}): Promise<PluginInstallResult> {
    return this.fromMarketplace(marketplacePath, pluginName, options, undefined);
  }

  /**
   * Replaces the installed plugin `name` with the marketplace's current version of its entry:
   * fetched, staged and validated like an install, then swapped in atomically (see
   * placePlugin); the old version is restored if anything fails. The entry must still give
   * the plugin the same name.
   */
  updateFromMarketplace(name: string, marketplacePath: string, pluginName: string, options: MarketplaceInstallOptions = {}): Promise<PluginInstallResult> {
    this.requireInstalled(name);
    return this.fromMarketplace(marketplacePath, pluginName, options, name);
  }

  private async fromMarketplace(marketplacePath: string, pluginName: string, options: MarketplaceInstallOptions, replacing: string | undefined): Promise<PluginInstallResult> {
    const marketplace = readMarketplace(marketplacePath);
    const { entry, source } = await resolveMarketplacePlugin(marketplace, pluginName, this.options.sourceResolvers ?? defaultSourceResolvers);
    try {
      const pinned = source.type === "relative" ? options.marketplacePinned : source.pinned;
      const installSource: PluginInstallSource = {
        type: "marketplace",
        marketplace: marketplace.file,
        marketplaceName: options.marketplaceName ?? marketplace.name,
        plugin: pluginName,
        sourceType: source.type,
        ...(pinned ? { pinned } : {}),
      };
      const record: PluginInstallRecord | undefined = options.marketplaceName
        ? { marketplace: options.marketplaceName, plugin: pluginName, source_type: source.type, ...pinned }
        : undefined;
      const extraWarnings: PluginProblem[] = [];
      return await this.install(installSource, entry.name, (content) => this.copyTree(source.folder, content), {
        locate: false,
        prepare: (root) => applyEntryManifest(root, entry, extraWarnings),
        extraWarnings,
        ...(options.strict !== undefined ? { strict: options.strict } : {}),
        ...(options.trusted !== undefined ? { trusted: options.trusted } : {}),
        ...(record ? { record: { installed_from: record } } : {}),
        ...(replacing ? { replacing } : {}),
      });
    } finally {
      await source.cleanup?.();
    }
  }

  /**
   * Copies a plugin folder under the archive rules; a link to a file or folder inside the tree
   * (`AGENTS.md -> CLAUDE.md`, common in repositories a marketplace names as `./`) is copied as
   * its target, with a warning; one leaving the tree is still refused.
   */
  private async copyTree(folder: string, content: string): Promise<PluginProblem[]> {
    const copied = await copyFolder(folder, content, { limits: this.limits, skip: isArchiveJunk, links: "copy-inside" });
    return copied.linked.map((link) => ({ severity: "warning", lenient: true, file: link.path, message: `is a symbolic link to ${link.target}; installed as a copy of it` }));
  }

  /**
   * Writes `enabled` (its skills, commands and servers come and go on the agent's next request),
   * `trusted` and `scripts_approved` (those given) to an installed plugin's entry.
   */
  async updateSettings(name: string, change: PluginSettingsChange): Promise<{ name: string; revision: number }> {
    const folder = this.requireInstalled(name);
    const { snapshot } = await this.options.store.update((draft) => {
      if (!fs.existsSync(folder)) throw notInstalled(name);
      draft.plugins[name] = {
        ...draft.plugins[name],
        enabled: change.enabled ?? draft.plugins[name]?.enabled ?? true,
        ...(change.trusted === undefined ? {} : { trusted: change.trusted }),
        ...(change.scriptsApproved === undefined ? {} : { scripts_approved: change.scriptsApproved }),
      };
    });
    return { name, revision: snapshot.revision };
  }

  /** Removes an installed plugin: its folder is moved aside (atomically) and deleted, and its store entry dropped. */
  async uninstall(name: string): Promise<{ name: string; revision: number }> {
    const folder = this.requireInstalled(name);
    const trash = await fs.promises.mkdtemp(path.join(stagingDir(this.options.pluginsDir), "remove-"));
    const moved = path.join(trash, "plugin");
    try {
      const { snapshot } = await this.options.store
        .update(async (draft) => {
          if (!fs.existsSync(folder)) throw notInstalled(name);
          await fs.promises.rename(folder, moved);
          delete draft.plugins[name];
        })
        .catch(async (error: unknown) => {
          if (fs.existsSync(moved) && !fs.existsSync(folder)) await fs.promises.rename(moved, folder);
          throw error;
        });
      await forgetPreviousVersion(this.options.pluginsDir, name);
      return { name, revision: snapshot.revision };
    } finally {
      await fs.promises.rm(trash, { recursive: true, force: true });
    }
  }

  /** Swaps the plugin with the version its last update replaced (see rollbackPlugin). */
  rollback(name: string): Promise<{ plugin: LoadedPlugin; revision: number }> {
    this.requireInstalled(name);
    return rollbackPlugin(this.options.store, this.options.pluginsDir, name);
  }

  private requireInstalled(name: string): string {
    const folder = path.join(installedPluginsDir(this.options.pluginsDir), name);
    if (!isValidPluginName(name) || !fs.existsSync(folder)) throw notInstalled(name);
    return folder;
  }

  private async install(
    source: PluginInstallSource,
    fallbackName: string,
    fill: (content: string) => Promise<unknown>,
    how: {
      locate: boolean;
      prepare?: (root: string) => void;
      extraWarnings?: PluginProblem[];
      strict?: boolean;
      trusted?: boolean;
      /** Merged into the plugin's store entry. */
      record?: Readonly<Record<string, unknown>>;
      /** The installed plugin this replaces (an update): swapped atomically. */
      replacing?: string;
    },
  ): Promise<PluginInstallResult> {
    const installed = installedPluginsDir(this.options.pluginsDir);
    await fs.promises.mkdir(installed, { recursive: true });
    const staging = await fs.promises.mkdtemp(path.join(stagingDir(this.options.pluginsDir), "install-"));
    try {
      const content = path.join(staging, "content");
      const filled = await fill(content);
      const fillWarnings = Array.isArray(filled) ? (filled as PluginProblem[]) : [];
      // An archive may wrap the plugin in one folder; a folder or marketplace source is the plugin itself.
      const located = how.locate ? locatePluginRoot(content, fallbackName) : { root: content, fallbackName };
      how.prepare?.(located.root);
      const staged = loadPlugin(located.root, { fallbackName: located.fallbackName });
      if (staged.manifestSource === "folder" && !hasPluginMarkers(located.root)) {
        throw new ThinktankError("INVALID_PLUGIN", `not a plugin: no ${manifestFile} and none of skills/, commands/, agents/, hooks/, .mcp.json`);
      }
      assertPluginValid(staged);
      if (how.strict) assertStrict(staged.name, [...fillWarnings, ...(how.extraWarnings ?? []), ...staged.problems]);
      if (how.replacing !== undefined && staged.name !== how.replacing) {
        throw new ThinktankError("INVALID_PLUGIN", `the new version names the plugin '${staged.name}', not '${how.replacing}'; uninstall and install it instead`);
      }
      const target = path.join(installed, staged.name);
      await placePlugin(this.options.store, {
        staged: located.root,
        target,
        name: staged.name,
        record: { ...how.record, ...(how.trusted ? { trusted: true } : {}) },
        ...(how.replacing !== undefined ? { replace: { aside: path.join(staging, "previous") } } : {}),
      });
      // The replaced version is kept for a rollback; losing it (a failed move) leaves the update in place.
      if (how.replacing !== undefined) await keepPreviousVersion(this.options.store, this.options.pluginsDir, staged.name, path.join(staging, "previous")).catch(() => undefined);
      const plugin = loadPlugin(target, { fallbackName: staged.name });
      const warnings = [...fillWarnings, ...(how.extraWarnings ?? []), ...plugin.problems.filter((p) => p.severity === "warning")];
      return { plugin, enabled: true, source, warnings };
    } finally {
      await fs.promises.rm(staging, { recursive: true, force: true });
    }
  }
}

/** Writes the manifest a marketplace entry makes for the staged copy (see entryManifest); its warnings go to `warnings`. */
function applyEntryManifest(root: string, entry: MarketplaceEntry, warnings: PluginProblem[]): void {
  const own = fs.existsSync(path.join(root, manifestFile)) ? readPluginManifest(root, entry.name) : undefined;
  if (own && own.problems.some((p) => p.severity === "error")) return; // loadPlugin reports them
  const combined = entryManifest(entry, own?.manifest as PluginManifest | undefined);
  for (const message of combined.warnings) warnings.push({ severity: "warning", file: manifestFile, message });
  if (combined.manifest) {
    fs.mkdirSync(path.join(root, ".claude-plugin"), { recursive: true });
    fs.writeFileSync(path.join(root, manifestFile), `${JSON.stringify(combined.manifest, null, 2)}\n`);
  }
}

/** A strict install refuses what only the lenient reading accepted. */
function assertStrict(name: string, problems: readonly PluginProblem[]): void {
  const lenient = problems.filter((problem) => problem.lenient);
  if (lenient.length === 0) return;
  const errors = lenient.map((problem) => ({ ...problem, severity: "error" as const }));
  throw new ThinktankError("INVALID_PLUGIN", `plugin '${name}' is not valid under strict=true: ${errors.map(describeProblem).join("; ")}`, { details: { problems: errors } });
}

function notInstalled(name: string): ThinktankError {
  return new ThinktankError("PLUGIN_NOT_FOUND", `no plugin named '${name}' is installed`, { details: { name } });
}
