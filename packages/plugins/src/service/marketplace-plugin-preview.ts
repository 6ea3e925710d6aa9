import { isThinktankError, ThinktankError } from "@thinktank/core";
import { loadSkills, type Skill } from "@thinktank/skills";
import { loadPlugin } from "../load-plugin.js";
import { pluginSkillSources } from "../snapshot/plugin-skill-sources.js";
import { resolveRelativeSource, sourceTypeOf } from "../marketplace/plugin-source-resolvers.js";
import type { Marketplace } from "../marketplace/read-marketplace.js";
import { mergePluginServers, type MergePluginServersOptions, type PluginHostPrograms } from "../servers/merge-plugin-servers.js";
import { pluginListingCost } from "./plugin-listing-cost.js";
import type { MarketplacePluginView } from "./plugin-manager.js";
import { detailView, type PluginDetailView } from "./plugin-views.js";

/** GET /api/marketplaces/:name/plugins/:plugin: an entry, and what it brings when that can be read without fetching. */
export interface MarketplacePluginPreview {
  readonly marketplace: string;
  readonly entry: MarketplacePluginView;
  /** The plugin as it would install (untrusted, enabled), with its projected `context_cost`; absent for a remote source. */
  readonly preview?: PluginDetailView;
  /** Why there is no preview (a remote source is fetched at install), or what could not be read. */
  readonly note?: string;
  /** The preview's skills as the skills loader reads them (untrusted), for listing their script tools; not part of the answer. */
  readonly skills?: readonly Skill[];
}

export interface PreviewOptions {
  readonly containerPath: string;
  readonly countTokens: (text: string) => number;
  readonly serverOptions: MergePluginServersOptions;
  readonly hostPrograms?: PluginHostPrograms;
}

/**
 * Reads a marketplace entry whose source lies inside the marketplace's copy (a relative path, the
 * common case for git and local marketplaces) as an install would, without copying, fetching or
 * running anything: its skills, commands, agents, hooks as they would run, servers with their
 * status, and what it would cost in the listing. The entry's own name and version win over the
 * folder's, as they do at install. Remote sources are not fetched for a preview.
 */
export async function previewMarketplacePlugin(marketplace: Marketplace, name: string, entry: MarketplacePluginView | undefined, options: PreviewOptions): Promise<MarketplacePluginPreview> {
  const found = marketplace.plugins.find((p) => p.name === name);
  if (!found || !entry) {
    throw new ThinktankError("PLUGIN_NOT_FOUND", `marketplace '${marketplace.name}' has no plugin '${name}'`, { details: { marketplace: marketplace.name } });
  }
  const base = { marketplace: marketplace.name, entry };
  const type = sourceTypeOf(found.source);
  if (type !== "relative") return { ...base, note: `its source (${type}) is fetched at install: what it brings is shown once it is installed` };
  let folder: string;
  try {
    folder = (await resolveRelativeSource(found, marketplace)).folder;
  } catch (error) {
    if (isThinktankError(error)) return { ...base, note: error.message };
    throw error;
  }
  const loaded = loadPlugin(folder, { fallbackName: name });
  const plugin = { ...loaded, name, manifest: { ...loaded.manifest, name, ...(entry.version ? { version: entry.version } : {}), ...(entry.description && loaded.manifest.description === undefined ? { description: entry.description } : {}) } };
  const servers = mergePluginServers([plugin], options.serverOptions).servers;
  const detail = detailView(plugin, true, { trusted: false, scriptsApproved: false }, servers, { containerPath: options.containerPath, ...(options.hostPrograms ? { hostPrograms: options.hostPrograms } : {}) });
  const { skills } = await loadSkills({ sources: pluginSkillSources(plugin), containerPath: options.containerPath });
  return { ...base, preview: { ...detail, context_cost: pluginListingCost(plugin, { countTokens: options.countTokens, containerPath: options.containerPath }) }, skills };
}
