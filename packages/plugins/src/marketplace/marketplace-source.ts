import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { copyFolder, ThinktankError, type MarketplaceRecord } from "@thinktank/core";
import { checkGitUrl, checkHttpUrl, checkPackageName, checkPackageVersion, checkRef, checkRepo, checkSubPath } from "../fetch/check-source-values.js";
import type { FetchOptions } from "../fetch/fetch-options.js";
import { fetchGitTree } from "../fetch/git-fetch.js";
import { httpGet } from "../fetch/http-get.js";
import { fetchNpmPackage } from "../fetch/npm-fetch.js";
import { readMarketplace } from "./read-marketplace.js";
import { githubUrl } from "./remote-source-resolvers.js";

export type MarketplaceSource = MarketplaceRecord["source"];
export type MarketplacePinned = NonNullable<MarketplaceRecord["pinned"]>;

const ownerRepo = /^([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+?)(?:\.git)?(?:[#@]([^\s#@]+))?$/;

/**
 * Reads what a user gives to add a marketplace: an object `{ source: "github" | "git" | "npm" |
 * "directory" | "url", ... }` as stored, or a string: `owner/repo` (optionally `#ref`) for
 * GitHub, a git URL, `npm:<package>[@version]`, an http(s) URL of a marketplace.json, or a
 * local path (`./x`, `../x`, `/x`, resolved against `baseDir`). Every value is checked as it
 * would reach git or npm (INVALID_SOURCE otherwise).
 */
export function parseMarketplaceSource(input: unknown, options: { readonly baseDir: string; readonly fetch: FetchOptions }): MarketplaceSource {
  if (input && typeof input === "object" && !Array.isArray(input)) return checkSource(input as Record<string, unknown>, options);
  if (typeof input !== "string" || input.trim() === "") throw new ThinktankError("INVALID_SOURCE", "source must be owner/repo, a git URL, npm:<package>, the URL of a marketplace.json, or a local path");
  const text = input.trim();
  if (text.startsWith("-")) throw new ThinktankError("INVALID_SOURCE", `source ${JSON.stringify(text)} starts with '-' (it would be read as an option)`);
  if (text.startsWith("npm:")) {
    const spec = text.slice(4);
    const at = spec.lastIndexOf("@");
    const [name, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, undefined];
    return checkSource({ source: "npm", package: name, ...(version ? { version } : {}) }, options);
  }
  if (/^https?:\/\/[^?#]*\.json(?:[?#].*)?$/i.test(text)) return checkSource({ source: "url", url: text }, options);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text) || /^[^/\s]+@[^/\s]+:/.test(text) || text.includes("::")) return checkSource({ source: "git", url: text }, options);
  const shorthand = ownerRepo.exec(text);
  if (shorthand && !/^\.{1,2}\//.test(text) && !fs.existsSync(path.resolve(options.baseDir, text))) {
    return checkSource({ source: "github", repo: shorthand[1], ...(shorthand[2] ? { ref: shorthand[2] } : {}) }, options);
  }
  return checkSource({ source: "directory", path: path.resolve(options.baseDir, text.replace(/^~(?=\/)/, options.fetch.env.HOME ?? "~")) }, options);
}

function checkSource(source: Record<string, unknown>, options: { readonly baseDir: string; readonly fetch: FetchOptions }): MarketplaceSource {
  const optional = <T>(key: string, check: (value: unknown) => T): Record<string, T> => (source[key] === undefined ? {} : { [key]: check(source[key]) });
  switch (source.source) {
    case "github":
      return { source: "github", repo: checkRepo(source.repo), ...optional("ref", checkRef), ...optional("path", checkSubPath) };
    case "git":
      return { source: "git", url: checkGitUrl(source.url, options.fetch), ...optional("ref", checkRef), ...optional("path", checkSubPath) };
    case "npm":
      return { source: "npm", package: checkPackageName(source.package), ...optional("version", checkPackageVersion) };
    case "url":
      return { source: "url", url: checkHttpUrl(source.url, options.fetch, "marketplace URL").href };
    case "directory":
      if (typeof source.path !== "string" || source.path === "") throw new ThinktankError("INVALID_SOURCE", "a directory source needs a 'path'");
      return { source: "directory", path: path.resolve(options.baseDir, source.path) };
    default:
      throw new ThinktankError("INVALID_SOURCE", `unknown marketplace source type ${JSON.stringify(source.source)} (github, git, npm, url, directory)`);
  }
}

/**
 * Fetches a marketplace into `destination` (which must not exist): a git commit's tree (or its
 * `path`), an npm package, a marketplace.json from a URL (written as
 * `.claude-plugin/marketplace.json`), or a copy of a local folder, all under the archive rules
 * and plugins.fetch limits. Returns what was pinned; the caller reads the marketplace from it.
 */
export async function fetchMarketplace(source: MarketplaceSource, destination: string, workParent: string, fetch: FetchOptions): Promise<MarketplacePinned> {
  const limits = { ...fetch.archiveLimits, maxTotalBytes: Math.min(fetch.archiveLimits.maxTotalBytes, fetch.maxBytes) };
  switch (source.source) {
    case "github":
    case "git": {
      const url = source.source === "github" ? githubUrl(fetch, source.repo) : String(source.url);
      const { commit } = await fetchGitTree({ url, ...strings(source, ["ref", "path"]), destination, workParent }, fetch);
      return { commit };
    }
    case "npm": {
      const fetched = await fetchNpmPackage({ package: String(source.package), ...strings(source, ["version"]), destination, workParent }, fetch);
      return { version: fetched.version, integrity: fetched.integrity };
    }
    case "url": {
      const { body } = await httpGet(new URL(String(source.url)), { timeoutMs: fetch.timeoutMs, maxBytes: Math.min(fetch.maxBytes, limits.maxFileBytes), what: `the marketplace at ${String(source.url)}`, headers: { accept: "application/json" } });
      await fs.promises.mkdir(path.join(destination, ".claude-plugin"), { recursive: true });
      await fs.promises.writeFile(path.join(destination, ".claude-plugin", "marketplace.json"), body);
      return { sha256: crypto.createHash("sha256").update(body).digest("hex") };
    }
    case "directory": {
      const root = readMarketplace(String(source.path)).root;
      await copyFolder(root, destination, { limits, skip: (segments) => segments[0] === ".git", links: "copy-inside" });
      return {};
    }
    default:
      throw new ThinktankError("INVALID_SOURCE", `unknown marketplace source type ${JSON.stringify(source.source)}`);
  }
}

function strings(source: MarketplaceSource, keys: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of keys) if (typeof source[key] === "string") picked[key] = source[key] as string;
  return picked;
}
