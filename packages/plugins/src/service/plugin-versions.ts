import fs from "node:fs";
import path from "node:path";
import type { PluginInstallRecord } from "../install/plugin-installer.js";
import type { MarketplaceRecord } from "@thinktank/core";
import { sha256Integrity } from "../fetch/archive-fetch.js";
import { sourceTypeOf } from "../marketplace/plugin-source-resolvers.js";
import type { Marketplace } from "../marketplace/read-marketplace.js";

/** One version of a plugin as far as it is known without fetching: its version string and pin. */
export interface PluginVersion {
  readonly version?: string;
  readonly commit?: string;
  readonly integrity?: string;
}

/** GET /api/plugins/:name `versions`: what is installed, what the marketplace's copy offers now, and whether they differ. */
export interface PluginVersionsView {
  readonly marketplace: string;
  readonly plugin: string;
  readonly installed: PluginVersion;
  /** Undefined when the marketplace is gone or no longer lists the plugin. */
  readonly available?: PluginVersion;
  readonly update_available: boolean;
}

/**
 * Compares an installed plugin with its marketplace's copy, reading files only: a plugin whose
 * source sits inside the marketplace is available at the marketplace's pinned commit (and its
 * entry's or plugin.json's version); a git source at the entry's `sha`, an npm source at the
 * entry's `version`, an archive at the entry's `sha256` (compared as the recorded integrity). A source without a pin (a branch, a dist-tag) shows what is known; POST
 * /api/plugins/:name/update fetches it.
 */
export function pluginVersions(record: PluginInstallRecord, installedVersion: string | undefined, marketplace: { readonly record: MarketplaceRecord; readonly marketplace: Marketplace } | undefined): PluginVersionsView {
  const installed: PluginVersion = {
    ...(installedVersion ?? record.version ? { version: installedVersion ?? record.version } : {}),
    ...(record.commit ? { commit: record.commit } : {}),
    ...(record.integrity ? { integrity: record.integrity } : {}),
  };
  const base = { marketplace: record.marketplace, plugin: record.plugin, installed };
  const entry = marketplace?.marketplace.plugins.find((p) => p.name === record.plugin);
  if (!marketplace || !entry) return { ...base, update_available: false };
  const source = entry.source as Record<string, unknown>;
  const type = sourceTypeOf(entry.source);
  const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
  const version = stringOf(entry.version) ?? (type === "relative" ? manifestVersion(marketplace.marketplace, String(entry.source)) : stringOf(source.version));
  const commit = type === "relative" ? marketplace.record.pinned?.commit : stringOf(source.sha);
  const digest = type === "archive" ? stringOf(source.sha256) : undefined;
  const integrity = digest && /^[0-9a-fA-F]{64}$/.test(digest) ? sha256Integrity(digest.toLowerCase()) : undefined;
  const available: PluginVersion = { ...(version ? { version } : {}), ...(commit ? { commit } : {}), ...(integrity ? { integrity } : {}) };
  const differs = (a: string | undefined, b: string | undefined): boolean => a !== undefined && b !== undefined && a !== b;
  return {
    ...base,
    available,
    update_available: differs(available.commit, installed.commit) || differs(available.version, installed.version) || differs(available.integrity, installed.integrity),
  };
}

function manifestVersion(marketplace: Marketplace, relative: string): string | undefined {
  const explicit = relative === "." || relative.startsWith("./") || relative.startsWith("../");
  const folder = path.resolve(explicit ? marketplace.root : marketplace.pluginRoot, relative);
  if (path.relative(marketplace.root, folder).startsWith("..")) return undefined;
  const file = path.join(folder, ".claude-plugin", "plugin.json");
  try {
    const version = (JSON.parse(fs.readFileSync(file, "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}
