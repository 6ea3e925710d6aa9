import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { checkRepo } from "../fetch/check-source-values.js";
import type { FetchOptions } from "../fetch/fetch-options.js";
import { fetchPluginArchive } from "../fetch/archive-fetch.js";
import { fetchGitTree } from "../fetch/git-fetch.js";
import { fetchNpmPackage } from "../fetch/npm-fetch.js";
import { resolveRelativeSource, type PluginSourceResolver, type PluginSourceResolvers, type ResolvedPluginSource } from "./plugin-source-resolvers.js";

/**
 * Resolvers for every marketplace source type Claude Code knows, beside relative paths:
 * `github` (`repo`, `ref`, `sha`, `path`), `url` (a git URL, `ref`, `sha`), `git-subdir`
 * (`url`, `path`, `ref`, `sha`), `npm` (`package`, `version`, `registry`) and `archive` (`url` of a
 * .tar.gz or .zip, optional `sha256`). Each fetches into a fresh folder under `workParent()` (the
 * staging folder) with fetchGitTree, fetchNpmPackage or fetchPluginArchive and returns it with
 * what was pinned; the installer copies it and calls `cleanup`. `command` is never resolved.
 */
export function remoteSourceResolvers(fetch: FetchOptions, workParent: () => string): PluginSourceResolvers {
  const git = (type: string): PluginSourceResolver => async (entry) => {
    const source = entry.source as Record<string, unknown>;
    const url = type === "github" ? githubUrl(fetch, source.repo) : /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(String(source.url)) ? githubUrl(fetch, source.url) : source.url;
    if (type === "git-subdir" && source.path === undefined) throw new ThinktankError("INVALID_SOURCE", `plugin '${entry.name}': a git-subdir source needs a 'path'`);
    return fetched(workParent(), type, async (folder) => {
      const { commit } = await fetchGitTree(
        {
          url: String(url),
          ...optional("ref", source.ref),
          ...optional("sha", source.sha),
          ...optional("path", source.path),
          destination: folder,
          workParent: workParent(),
        },
        fetch,
      );
      return { commit };
    });
  };
  const npm: PluginSourceResolver = async (entry) => {
    const source = entry.source as Record<string, unknown>;
    return fetched(workParent(), "npm", async (folder) => {
      const result = await fetchNpmPackage(
        { package: String(source.package ?? ""), ...optional("version", source.version), ...optional("registry", source.registry), destination: folder, workParent: workParent() },
        fetch,
      );
      return { version: result.version, integrity: result.integrity };
    });
  };
  const archive: PluginSourceResolver = async (entry) => {
    const source = entry.source as Record<string, unknown>;
    return fetched(workParent(), "archive", async (folder) => {
      const result = await fetchPluginArchive({ url: String(source.url ?? ""), ...optional("sha256", source.sha256), destination: folder, workParent: workParent() }, fetch);
      return { integrity: result.integrity };
    });
  };
  return Object.freeze({ relative: resolveRelativeSource, github: git("github"), url: git("url"), "git-subdir": git("git-subdir"), npm, archive });
}

/** `<github_url>/<owner>/<repo>.git`. */
export function githubUrl(fetch: FetchOptions, repo: unknown): string {
  return `${fetch.githubUrl.replace(/\/+$/, "")}/${checkRepo(repo)}.git`;
}

async function fetched(parent: string, type: string, fill: (folder: string) => Promise<ResolvedPluginSource["pinned"]>): Promise<ResolvedPluginSource> {
  const work = await fs.promises.mkdtemp(path.join(parent, "source-"));
  const cleanup = (): Promise<void> => fs.promises.rm(work, { recursive: true, force: true });
  try {
    const folder = path.join(work, "plugin");
    const pinned = await fill(folder);
    return { folder, type, ...(pinned ? { pinned } : {}), cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

function optional(key: string, value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "string") throw new ThinktankError("INVALID_SOURCE", `the source's '${key}' must be a string`);
  return { [key]: value };
}
