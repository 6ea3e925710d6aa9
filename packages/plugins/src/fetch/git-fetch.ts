import fs from "node:fs";
import path from "node:path";
import { copyFolder, HostConfinement, maskUrlSecrets, ThinktankError } from "@thinktank/core";
import { checkCommit, checkGitUrl, checkRef, checkSubPath } from "./check-source-values.js";
import type { FetchOptions } from "./fetch-options.js";
import { runGit } from "./run-git.js";

export interface GitTreeRequest {
  /** Checked by checkGitUrl. */
  readonly url: string;
  /** A branch or tag; default: the remote's HEAD. */
  readonly ref?: string;
  /** The exact commit wanted (pins the fetch); checked against what arrives. */
  readonly sha?: string;
  /** Only this folder of the repository (git-subdir, a marketplace's `path`). */
  readonly path?: string;
  /** Created with the tree (without .git); must not exist. */
  readonly destination: string;
  /** A folder for the temporary clone (same file system as destination, e.g. the staging folder). */
  readonly workParent: string;
}

/**
 * Fetches one commit of a git repository, shallow (depth 1), and copies its tree (or one
 * folder of it) to `destination` under the archive rules (entries, sizes, special files; a
 * link inside the tree copied as its target, one leaving it refused). Returns the exact commit.
 *
 * git runs with argument hygiene: every value is checked first (checkGitUrl, checkRef, ...),
 * passed after `--`, with only https/ssh/git (and http when allowed) protocols enabled
 * (GIT_ALLOW_PROTOCOL, protocol.allow=never otherwise, GIT_PROTOCOL_FROM_USER=0), no system or
 * user configuration, no hooks, no prompts, no submodules, LFS smudging off. A token for the
 * configured GitHub URL (GITHUB_TOKEN) goes in an environment-only http.extraHeader, never on
 * the command line, never stored.
 */
export async function fetchGitTree(request: GitTreeRequest, options: FetchOptions): Promise<{ commit: string }> {
  const url = checkGitUrl(request.url, options);
  const ref = request.ref === undefined ? undefined : checkRef(request.ref);
  const sha = request.sha === undefined ? undefined : checkCommit(request.sha);
  const subPath = request.path === undefined ? undefined : checkSubPath(request.path);
  const work = await fs.promises.mkdtemp(path.join(request.workParent, "git-"));
  const repo = path.join(work, "repo");
  const shownUrl = maskUrlSecrets(url); // a password or a token in the URL stays out of messages
  const shown = `fetching ${shownUrl}${ref ? ` (${ref})` : ""}`;
  const { env, secrets } = gitEnvironment(url, options);
  // git runs confined; where that means as a dedicated user (no pid namespace here), the clone's folder is that user's.
  const confinement = options.hostConfinement ?? new HostConfinement({ searchPath: env.PATH });
  confinement.handOver(work);
  const git = (args: string[], what = shown, sizeLimited = false): Promise<string> =>
    runGit({ args: [...gitConfig(options), ...args], cwd: work, env, timeoutMs: options.timeoutMs, what, secrets, confinement, ...(sizeLimited ? { sizeLimit: { dir: path.join(repo, ".git"), maxBytes: options.maxBytes } } : {}) });
  try {
    await git(["init", "-q", "--", repo]);
    const want = sha ?? ref ?? "HEAD";
    try {
      await git(["-C", repo, "fetch", "-q", "--depth=1", "--no-tags", "--no-recurse-submodules", "--", url, want], shown, true);
    } catch (error) {
      // Some servers do not hand out a commit by id: fetch the ref and look for it there.
      if (!sha || !(error instanceof ThinktankError) || error.code !== "SOURCE_FETCH_FAILED") throw error;
      await git(["-C", repo, "fetch", "-q", "--no-tags", "--no-recurse-submodules", "--", url, ref ?? "HEAD"], shown, true);
    }
    await git(["-C", repo, "checkout", "-q", "--detach", sha ?? "FETCH_HEAD"], `checking out ${sha ?? ref ?? "HEAD"} of ${shownUrl}`);
    const commit = (await git(["-C", repo, "rev-parse", "--verify", "HEAD^{commit}"])).trim();
    if (sha && commit !== sha) throw new ThinktankError("INTEGRITY_MISMATCH", `${shownUrl} gave commit ${commit}, not the pinned ${sha}`);
    const from = subPath ? path.join(repo, subPath) : repo;
    const stat = await fs.promises.lstat(from).catch(() => undefined);
    if (!stat?.isDirectory()) throw new ThinktankError("SOURCE_FETCH_FAILED", `${shownUrl} at ${commit.slice(0, 12)} has no folder ${JSON.stringify(subPath)}`);
    await copyFolder(from, request.destination, {
      limits: { ...options.archiveLimits, maxTotalBytes: Math.min(options.archiveLimits.maxTotalBytes, options.maxBytes) },
      skip: (segments) => segments[0] === ".git",
      links: "copy-inside",
    });
    return { commit };
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

/** `-c` settings for every git call: protocols, no hooks or fsmonitor, no submodules, links kept as links (copyFolder judges them). */
function gitConfig(options: FetchOptions): string[] {
  const protocols = ["https", "ssh", "git", ...(options.allowHttp ? ["http"] : [])];
  return [
    "-c", "protocol.allow=never",
    ...protocols.flatMap((protocol) => ["-c", `protocol.${protocol}.allow=always`]),
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "core.symlinks=true",
    "-c", "submodule.recurse=false",
    "-c", "advice.detachedHead=false",
    "-c", "init.defaultBranch=main",
  ];
}

/** The whole environment of git: PATH, HOME (for ssh), and the settings above; a GitHub token only for the GitHub URL. */
function gitEnvironment(url: string, options: FetchOptions): { env: Record<string, string>; secrets: string[] } {
  const protocols = ["https", "ssh", "git", ...(options.allowHttp ? ["http"] : [])];
  const env: Record<string, string> = {
    PATH: options.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    // ssh keys and the agent for private repositories; git's own user configuration stays out (GIT_CONFIG_GLOBAL).
    HOME: options.env.HOME ?? "/nonexistent",
    ...(options.env.SSH_AUTH_SOCK ? { SSH_AUTH_SOCK: options.env.SSH_AUTH_SOCK } : {}),
    LANG: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_SSH_COMMAND: "ssh -o BatchMode=yes",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_ALLOW_PROTOCOL: protocols.join(":"),
    GIT_LFS_SKIP_SMUDGE: "1",
  };
  const token = options.env.GITHUB_TOKEN;
  const base = options.githubUrl.replace(/\/+$/, "");
  if (token && url.startsWith(`${base}/`)) {
    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    Object.assign(env, { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: `http.${base}/.extraheader`, GIT_CONFIG_VALUE_0: header });
    return { env, secrets: [token, header] };
  }
  return { env, secrets: [] };
}
