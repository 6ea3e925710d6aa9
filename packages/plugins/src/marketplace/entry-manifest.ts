import { ThinktankError } from "@thinktank/core";
import type { PluginManifest } from "../plugin-types.js";
import type { MarketplaceEntry } from "./read-marketplace.js";

const metadataKeys = ["version", "description", "author", "homepage", "repository", "license", "keywords"] as const;
const componentKeys = ["commands", "agents", "skills", "hooks", "mcpServers", "outputStyles", "lspServers"] as const;

export interface EntryManifest {
  /** The manifest the installed plugin gets, or undefined when its own plugin.json stays as it is. */
  readonly manifest: Record<string, unknown> | undefined;
  readonly warnings: readonly string[];
}

/**
 * Combines a marketplace entry with the plugin's own plugin.json, as Claude Code does.
 * - `strict: true` (the default): plugin.json is authoritative; the entry fills only fields it
 *   lacks (metadata and component paths). Without a plugin.json the entry is the manifest.
 * - `strict: false`: the entry is the whole definition of components; a plugin.json that declares
 *   components too is refused (INVALID_PLUGIN), its metadata fills what the entry lacks.
 * The plugin.json name wins over the entry's (a warning says so when they differ).
 */
export function entryManifest(entry: MarketplaceEntry, existing: PluginManifest | undefined): EntryManifest {
  const warnings: string[] = [];
  const fromEntry = pick(entry, [...metadataKeys, ...componentKeys]);
  if (entry.strict === false) {
    const declared = existing ? componentKeys.filter((key) => existing[key] !== undefined) : [];
    if (declared.length > 0) {
      throw new ThinktankError(
        "INVALID_PLUGIN",
        `marketplace entry '${entry.name}' has strict: false, so it must define the components alone, but the plugin's plugin.json declares ${declared.join(", ")}`,
      );
    }
  }
  if (!existing) return { manifest: { name: entry.name, ...fromEntry }, warnings };
  if (existing.name !== entry.name) warnings.push(`the marketplace lists this plugin as '${entry.name}' but its plugin.json names it '${existing.name}'; '${existing.name}' is used`);
  const merged: Record<string, unknown> = { ...existing };
  for (const [key, value] of Object.entries(fromEntry)) {
    if (merged[key] === undefined) merged[key] = value;
    else if (JSON.stringify(merged[key]) !== JSON.stringify(value) && (componentKeys as readonly string[]).includes(key)) {
      warnings.push(`the marketplace entry's '${key}' is ignored: plugin.json declares its own`);
    }
  }
  const changed = Object.keys(merged).length !== Object.keys(existing).length;
  return { manifest: changed ? merged : undefined, warnings };
}

function pick(source: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}
