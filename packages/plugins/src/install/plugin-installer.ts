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
  | { readonly type: "marketplace"; readonly marketplace: string; readonly marketplaceName: string; readonly plugin: string; readonly sourceType: string };

/** How strictly to read what is installed. */
export interface PluginInstallOptions {
  /**
   * Refuse what only the lenient reading accepts (problems marked `lenient`: departures from the
   * Agent Skills spec, YAML read line by line, links copied, a skills path naming one skill), for
   * authors who want the strict verdict. @default false: installed, with those as warnings
   */
  readonly strict?: boolean;
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
  async installFromMarketplace(marketplacePath: string, pluginName: string, options: PluginInstallOptions = {}): Promise<PluginInstallResult> {
    const marketplace = readMarketplace(marketplacePath);
    const { entry, source } = await resolveMarketplacePlugin(marketplace, pluginName, this.options.sourceResolvers ?? defaultSourceResolvers);
    const installSource: PluginInstallSource = { type: "marketplace", marketplace: marketplace.file, marketplaceName: marketplace.name, plugin: pluginName, sourceType: source.type };
    const extraWarnings: PluginProblem[] = [];
    return this.install(installSource, entry.name, (content) => this.copyTree(source.folder, content), {
      locate: false,
      prepare: (root) => applyEntryManifest(root, entry, extraWarnings),
      extraWarnings,
      ...options,
    });
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

  /** Enables or disables an installed plugin (its skills, commands and servers come and go on the agent's next request). */
  async setEnabled(name: string, enabled: boolean): Promise<{ name: string; enabled: boolean; revision: number }> {
    const folder = this.requireInstalled(name);
    const { snapshot } = await this.options.store.update((draft) => {
      if (!fs.existsSync(folder)) throw notInstalled(name);
      draft.plugins[name] = { ...draft.plugins[name], enabled };
    });
    return { name, enabled, revision: snapshot.revision };
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
      return { name, revision: snapshot.revision };
    } finally {
      await fs.promises.rm(trash, { recursive: true, force: true });
    }
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
    how: { locate: boolean; prepare?: (root: string) => void; extraWarnings?: PluginProblem[]; strict?: boolean },
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
      const target = path.join(installed, staged.name);
      await this.options.store.update(async (draft) => {
        if (fs.existsSync(target)) throw conflict(staged.name);
        try {
          await fs.promises.rename(located.root, target);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOTEMPTY" || code === "EEXIST") throw conflict(staged.name);
          throw error;
        }
        draft.plugins[staged.name] = { ...draft.plugins[staged.name], enabled: true };
      }).catch(async (error: unknown) => {
        // The store refused the write after the rename: take the folder back out.
        if (fs.existsSync(target) && !fs.existsSync(located.root) && !(error instanceof ThinktankError && error.code === "PLUGIN_NAME_CONFLICT")) {
          await fs.promises.rename(target, located.root).catch(() => fs.promises.rm(target, { recursive: true, force: true }));
        }
        throw error;
      });
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

function conflict(name: string): ThinktankError {
  return new ThinktankError("PLUGIN_NAME_CONFLICT", `a plugin named '${name}' is already installed; uninstall it first`, { details: { name } });
}
