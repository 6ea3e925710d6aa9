import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { nearMatches } from "@thinktank/core";
import type { Marketplace, MarketplaceEntry } from "./read-marketplace.js";

/** Where a marketplace entry's plugin can be read from. */
export interface ResolvedPluginSource {
  /** A folder on this machine holding the plugin (copied, never installed in place). */
  readonly folder: string;
  /** The source type that resolved it ("relative", "github", ...). */
  readonly type: string;
  /** Exactly what was fetched: the git commit, the npm version and tarball integrity, or an archive's integrity (`sha256-...`). */
  readonly pinned?: { readonly commit?: string; readonly integrity?: string; readonly version?: string };
  /** Removes what the resolver fetched (called once the plugin is copied). */
  readonly cleanup?: () => Promise<void>;
}

/** Turns one entry's `source` into a folder. Resolvers that fetch (git, npm) can be added by type. */
export type PluginSourceResolver = (entry: MarketplaceEntry, marketplace: Marketplace) => Promise<ResolvedPluginSource>;

/** Source type → resolver. `relative` is the string form (`"./plugins/x"`); object sources use their `source` field. */
export type PluginSourceResolvers = Readonly<Record<string, PluginSourceResolver>>;

/** The type of an entry's source: "relative" for a string, else the object's `source` field. */
export function sourceTypeOf(source: unknown): string {
  if (typeof source === "string") return "relative";
  if (source && typeof source === "object" && typeof (source as { source?: unknown }).source === "string") return (source as { source: string }).source;
  return "unknown";
}

/**
 * A relative source: `./x`, `../x` and `.` start at the marketplace root; a bare name (`x`) starts
 * at `metadata.pluginRoot`. The folder must exist and stay inside the marketplace root (links
 * resolved), else INVALID_MARKETPLACE.
 */
export const resolveRelativeSource: PluginSourceResolver = async (entry, marketplace) => {
  const written = entry.source as string;
  const where = `marketplace '${marketplace.name}' entry '${entry.name}'`;
  if (path.isAbsolute(written)) throw new ThinktankError("INVALID_MARKETPLACE", `${where}: source ${JSON.stringify(written)} must be relative to the marketplace`);
  const explicit = written === "." || written.startsWith("./") || written.startsWith("../");
  const folder = path.resolve(explicit ? marketplace.root : marketplace.pluginRoot, written);
  let real: string;
  try {
    real = await fs.promises.realpath(folder);
  } catch {
    throw new ThinktankError("INVALID_MARKETPLACE", `${where}: source ${JSON.stringify(written)} does not exist (looked at ${folder})`);
  }
  const rootReal = await fs.promises.realpath(marketplace.root);
  const relative = path.relative(rootReal, real);
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new ThinktankError("INVALID_MARKETPLACE", `${where}: source ${JSON.stringify(written)} leads outside the marketplace folder`);
  }
  if (!(await fs.promises.stat(real)).isDirectory()) throw new ThinktankError("INVALID_MARKETPLACE", `${where}: source ${JSON.stringify(written)} is not a folder`);
  return { folder: real, type: "relative" };
};

/** Relative sources only: what needs no fetching (remoteSourceResolvers adds github, url, git-subdir, npm and archive). */
export const defaultSourceResolvers: PluginSourceResolvers = Object.freeze({ relative: resolveRelativeSource });

/**
 * Finds `pluginName` in the marketplace and resolves its source with the resolver for its type.
 * PLUGIN_NOT_FOUND (with near names) when the entry is missing; UNSUPPORTED_SOURCE naming the
 * type when no resolver handles it, and always for a `command` source (it would run a program
 * on this host to produce the plugin).
 */
export async function resolveMarketplacePlugin(
  marketplace: Marketplace,
  pluginName: string,
  resolvers: PluginSourceResolvers = defaultSourceResolvers,
): Promise<{ entry: MarketplaceEntry; source: ResolvedPluginSource }> {
  const entry = marketplace.plugins.find((p) => p.name === pluginName);
  if (!entry) {
    const names = marketplace.plugins.map((p) => p.name);
    const close = nearMatches(pluginName, names);
    throw new ThinktankError(
      "PLUGIN_NOT_FOUND",
      `marketplace '${marketplace.name}' has no plugin '${pluginName}'${close.length > 0 ? `; did you mean ${close.join(", ")}?` : ""}`,
      { details: { marketplace: marketplace.name, available: names.length } },
    );
  }
  const type = sourceTypeOf(entry.source);
  if (type === "command") {
    throw new ThinktankError(
      "UNSUPPORTED_SOURCE",
      `plugin '${pluginName}' has a 'command' source, which is refused: producing the plugin would run a program from the marketplace on this host; install it from a local folder or zip instead`,
      { details: { sourceType: type, source: entry.source } },
    );
  }
  const resolver = Object.hasOwn(resolvers, type) ? resolvers[type] : undefined;
  if (!resolver) {
    const supported = Object.keys(resolvers).join(", ");
    throw new ThinktankError(
      "UNSUPPORTED_SOURCE",
      `plugin '${pluginName}' has a '${type}' source, which this deployment cannot fetch (supported: ${supported}); install it from a local folder or zip instead`,
      { details: { sourceType: type, source: entry.source } },
    );
  }
  return { entry, source: await resolver(entry, marketplace) };
}
