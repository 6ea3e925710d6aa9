import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { readJsonFile } from "../components/read-json-file.js";
import { typeName } from "../manifest/read-plugin-manifest.js";

/** One `plugins[]` entry of a marketplace: `name`, `source`, and any manifest fields, as written. */
export interface MarketplaceEntry {
  readonly name: string;
  /** A relative path string, or an object `{ source: "<type>", ... }`. */
  readonly source: unknown;
  /** @default true */
  readonly strict?: boolean;
  readonly [key: string]: unknown;
}

export interface Marketplace {
  readonly name: string;
  readonly owner?: Readonly<Record<string, unknown>>;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** The marketplace.json read (absolute). */
  readonly file: string;
  /** The folder holding `.claude-plugin/` (or the file's folder): relative sources start here. */
  readonly root: string;
  /** `metadata.pluginRoot` resolved (absolute): bare source names start here. @default root */
  readonly pluginRoot: string;
  /** The valid entries, in file order. */
  readonly plugins: readonly MarketplaceEntry[];
  /** Entries left out, and why (the others still load, as in Claude Code). */
  readonly problems: readonly string[];
}

/**
 * Reads a marketplace from the path of its marketplace.json, or of a folder holding
 * `.claude-plugin/marketplace.json` (or `marketplace.json`). Unknown keys are kept. A file that
 * is not JSON, or lacks `name` or a `plugins` list, is INVALID_MARKETPLACE; a bad entry is only
 * reported in `problems`.
 */
export function readMarketplace(location: string): Marketplace {
  const file = marketplaceFile(path.resolve(location));
  const read = readJsonFile(file, file);
  if (!read.ok) throw new ThinktankError("INVALID_MARKETPLACE", `${file} ${read.problem.message}`);
  const value = read.value;
  if (!isObject(value)) throw new ThinktankError("INVALID_MARKETPLACE", `${file}: must be a JSON object (got ${typeName(value)})`);
  const reasons: string[] = [];
  if (typeof value.name !== "string" || value.name.trim() === "") reasons.push(`'name' must be a non-empty string (got ${typeName(value.name)})`);
  if (!Array.isArray(value.plugins)) reasons.push(`'plugins' must be a list (got ${typeName(value.plugins)})`);
  if (value.owner !== undefined && !isObject(value.owner)) reasons.push(`'owner' must be an object (got ${typeName(value.owner)})`);
  if (value.metadata !== undefined && !isObject(value.metadata)) reasons.push(`'metadata' must be an object (got ${typeName(value.metadata)})`);
  if (reasons.length > 0) throw new ThinktankError("INVALID_MARKETPLACE", `${file}: ${reasons.join("; ")}`, { details: { problems: reasons } });

  const root = path.basename(path.dirname(file)) === ".claude-plugin" ? path.dirname(path.dirname(file)) : path.dirname(file);
  const metadata = value.metadata as Record<string, unknown> | undefined;
  const pluginRoot = resolvePluginRoot(root, metadata?.pluginRoot, file);
  const plugins: MarketplaceEntry[] = [];
  const problems: string[] = [];
  (value.plugins as unknown[]).forEach((entry, index) => {
    const problem = entryProblem(entry, plugins);
    if (problem) problems.push(`plugins[${index}]: ${problem}`);
    else plugins.push(entry as MarketplaceEntry);
  });
  return {
    name: value.name as string,
    ...(isObject(value.owner) ? { owner: value.owner } : {}),
    ...(metadata ? { metadata } : {}),
    file,
    root,
    pluginRoot,
    plugins,
    problems,
  };
}

function marketplaceFile(location: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(location);
  } catch {
    throw new ThinktankError("NOT_FOUND", `marketplace not found: ${location}`);
  }
  if (stat.isFile()) return location;
  for (const candidate of [path.join(location, ".claude-plugin", "marketplace.json"), path.join(location, "marketplace.json")]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new ThinktankError("NOT_FOUND", `no marketplace in ${location} (looked for .claude-plugin/marketplace.json and marketplace.json)`);
}

function resolvePluginRoot(root: string, written: unknown, file: string): string {
  if (written === undefined) return root;
  if (typeof written !== "string" || written.trim() === "") throw new ThinktankError("INVALID_MARKETPLACE", `${file}: 'metadata.pluginRoot' must be a non-empty string (got ${typeName(written)})`);
  const resolved = path.resolve(root, written);
  const relative = path.relative(root, resolved);
  if (path.isAbsolute(written) || relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new ThinktankError("INVALID_MARKETPLACE", `${file}: 'metadata.pluginRoot' ${JSON.stringify(written)} must stay inside the marketplace folder`);
  }
  return resolved;
}

function entryProblem(entry: unknown, earlier: readonly MarketplaceEntry[]): string | undefined {
  if (!isObject(entry)) return `must be an object (got ${typeName(entry)})`;
  if (typeof entry.name !== "string" || entry.name.trim() === "") return `'name' must be a non-empty string (got ${typeName(entry.name)})`;
  if (earlier.some((e) => e.name === entry.name)) return `'${entry.name}' is listed twice; the first entry is used`;
  if (entry.strict !== undefined && typeof entry.strict !== "boolean") return `'${entry.name}': 'strict' must be true or false`;
  const source = entry.source;
  if (typeof source === "string") return source.trim() === "" ? `'${entry.name}': 'source' is empty` : undefined;
  if (!isObject(source) || typeof source.source !== "string") return `'${entry.name}': 'source' must be a relative path or an object with a string 'source' type (got ${typeName(source)})`;
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
