import fs from "node:fs";
import path from "node:path";
import { ThinktankError, cleanVirtualPath, isInsideFolder } from "@thinktank/core";
import type { SandboxMount } from "../sandbox-types.js";

/** A thread's host folders, seen by the model as /mnt/user-data/{workspace,uploads,outputs}. */
export interface ThreadFolders {
  /** The sandbox workspace of the thread (config.sandbox.workspaces_dir/<thread>): execute_code and bash see it too. */
  readonly workspace: string;
  readonly uploads: string;
  readonly outputs: string;
}

/** What the virtual folders need of a skill (the skills package's Skill fits). */
export interface SkillFolder {
  readonly enabled: boolean;
  /** The skill's folder on the host. */
  readonly dir: string;
  /** Its virtual folder, e.g. /mnt/skills/public/pdf. */
  readonly containerDir: string;
}

/** The skills side of the virtual folders: the skills package's SkillsSnapshotter fits. */
export interface SkillFiles {
  snapshot(): Promise<{ readonly skills: readonly SkillFolder[] }>;
  /** Resolves `/mnt/skills/...` for enabled skills only (INVALID_PATH, PATH_TRAVERSAL, SKILL_NOT_FOUND, NOT_FOUND otherwise). */
  resolvePath(virtualPath: string): Promise<{ readonly skill: SkillFolder; readonly file: string; readonly virtualPath: string }>;
}

export interface VirtualFileSystemOptions {
  readonly skills: SkillFiles;
  /** config.skills.container_path. @default "/mnt/skills" */
  readonly containerPath?: string;
  readonly folders: ThreadFolders;
  /** Creates the thread's workspace (with the sandbox user as owner) and returns it. @default mkdir -p folders.workspace */
  readonly ensureWorkspace?: () => string;
}

/**
 * A virtual path resolved to what is behind it. Under /mnt/user-data it also names `userFolder`, the
 * virtual folder whose host folder is `root` (e.g. /mnt/user-data/workspace): a sandboxed program of
 * the thread may change what is under it at any moment, so what resolve checked here can be stale by
 * the time it is used; FileOperations holds each folder open on the way (held-folders.ts) instead of
 * trusting `hostPath`.
 */
export type VirtualTarget =
  | {
      readonly kind: "file" | "folder" | "missing";
      readonly virtualPath: string;
      readonly hostPath: string;
      readonly writable: boolean;
      readonly root: string;
      readonly userFolder?: string;
    }
  | { readonly kind: "listing"; readonly virtualPath: string; readonly entries: readonly string[] };

const userDataRoot = "/mnt/user-data";
const userFolders = ["outputs", "uploads", "workspace"] as const;

/**
 * The folders the model's file tools and its sandboxed commands see: /mnt/skills (read-only;
 * enabled skills only, through the skills snapshot) and /mnt/user-data/{workspace,uploads,outputs}
 * of one thread (workspace and outputs writable). Refused with a code: what cleanVirtualPath
 * refuses (relative paths, NUL bytes, backslashes: INVALID_PATH; `..` segments, percent-encoded
 * dots: PATH_TRAVERSAL), symlinks that lead out of their folder (PATH_TRAVERSAL), anything else
 * (INVALID_PATH). /, /mnt, /mnt/user-data and the folders above skills list as virtual folders, so
 * `ls` can walk down from the top without revealing disabled skills.
 */
export class VirtualFileSystem {
  private readonly containerPath: string;

  constructor(private readonly options: VirtualFileSystemOptions) {
    this.containerPath = (options.containerPath ?? "/mnt/skills").replace(/\/+$/, "");
  }

  async resolve(virtualPath: unknown): Promise<VirtualTarget> {
    const cleaned = cleanVirtualPath(virtualPath, `${userDataRoot}/workspace`);
    if (cleaned === this.containerPath || cleaned.startsWith(`${this.containerPath}/`)) return this.resolveSkillPath(cleaned);
    if (cleaned === userDataRoot) return { kind: "listing", virtualPath: cleaned, entries: userFolders.map((name) => `${name}/`) };
    if (cleaned.startsWith(`${userDataRoot}/`)) return this.resolveUserPath(cleaned);
    const tops = [this.containerPath, userDataRoot];
    const children = childNames(cleaned, tops);
    if (children.length > 0) return { kind: "listing", virtualPath: cleaned, entries: children };
    throw new ThinktankError("INVALID_PATH", `${cleaned} is outside the folders you can use (${this.containerPath}, ${userDataRoot}/workspace, ${userDataRoot}/uploads, ${userDataRoot}/outputs)`);
  }

  /** The host folder behind /mnt/user-data/<name>, created on first use. */
  userFolder(name: (typeof userFolders)[number]): string {
    if (name === "workspace") return this.options.ensureWorkspace ? this.options.ensureWorkspace() : mkdir(this.options.folders.workspace);
    return mkdir(this.options.folders[name]);
  }

  /**
   * What a sandboxed command of this thread sees besides its workspace: every enabled skill's folder
   * read-only at its /mnt/skills path (disabled skills are absent), /mnt/user-data/uploads read-only
   * and /mnt/user-data/outputs read-write.
   */
  async sandboxMounts(): Promise<SandboxMount[]> {
    return [
      ...skillMounts((await this.options.skills.snapshot()).skills),
      { hostPath: this.userFolder("uploads"), sandboxPath: `${userDataRoot}/uploads` },
      { hostPath: this.userFolder("outputs"), sandboxPath: `${userDataRoot}/outputs`, writable: true },
    ];
  }

  private async resolveSkillPath(cleaned: string): Promise<VirtualTarget> {
    const { skills } = await this.options.skills.snapshot();
    const enabled = skills.filter((skill) => skill.enabled);
    if (!enabled.some((skill) => skill.containerDir === cleaned || cleaned.startsWith(`${skill.containerDir}/`))) {
      const children = childNames(cleaned, enabled.map((skill) => skill.containerDir));
      if (children.length > 0 || cleaned === this.containerPath) return { kind: "listing", virtualPath: cleaned, entries: children };
    }
    const resolved = await this.options.skills.resolvePath(cleaned);
    const stats = fs.statSync(resolved.file);
    return { kind: stats.isDirectory() ? "folder" : "file", virtualPath: resolved.virtualPath, hostPath: resolved.file, writable: false, root: resolved.skill.dir };
  }

  private resolveUserPath(cleaned: string): VirtualTarget {
    const [folder, ...rest] = cleaned.slice(userDataRoot.length + 1).split("/");
    if (!(userFolders as readonly string[]).includes(folder as string)) {
      throw new ThinktankError("INVALID_PATH", `${cleaned}: ${userDataRoot} holds only workspace, uploads and outputs`);
    }
    const root = fs.realpathSync(this.userFolder(folder as (typeof userFolders)[number]));
    const writable = folder !== "uploads";
    const hostPath = path.join(root, ...rest);
    // The deepest part that exists decides: its real path must stay inside the folder.
    let existing = hostPath;
    let missing = false;
    for (;;) {
      try {
        fs.lstatSync(existing);
        break;
      } catch {
        missing = true;
        existing = path.dirname(existing);
      }
    }
    let real: string;
    try {
      real = fs.realpathSync(existing);
    } catch {
      throw new ThinktankError("PATH_TRAVERSAL", `${cleaned} goes through a symbolic link that leads nowhere`);
    }
    if (!isInsideFolder(root, real)) {
      throw new ThinktankError("PATH_TRAVERSAL", `${cleaned} leads outside ${userDataRoot}/${folder} (through a symbolic link)`);
    }
    const userFolder = `${userDataRoot}/${folder}`;
    if (missing) return { kind: "missing", virtualPath: cleaned, hostPath: path.join(real, path.relative(existing, hostPath)), writable, root, userFolder };
    const stats = fs.statSync(real, { throwIfNoEntry: false });
    // Removed since (a sandboxed program of the thread may be changing the folder): as good as missing.
    if (!stats) return { kind: "missing", virtualPath: cleaned, hostPath: real, writable, root, userFolder };
    return { kind: stats.isDirectory() ? "folder" : "file", virtualPath: cleaned, hostPath: real, writable, root, userFolder };
  }
}

/** Names (as `name/`) of the next segment of every path in `paths` strictly below `folder`, sorted. */
function childNames(folder: string, paths: readonly string[]): string[] {
  const prefix = folder === "/" ? "/" : `${folder}/`;
  const names = new Set<string>();
  for (const candidate of paths) if (candidate.startsWith(prefix)) names.add(`${candidate.slice(prefix.length).split("/")[0]}/`);
  return [...names].sort();
}

function mkdir(folder: string): string {
  fs.mkdirSync(folder, { recursive: true });
  return folder;
}

/** One read-only mount per enabled skill folder; a skill inside another mounted skill's folder comes with it. */
function skillMounts(skills: readonly SkillFolder[]): SandboxMount[] {
  const folders = skills
    .filter((skill) => skill.enabled)
    .map((skill) => ({ hostPath: skill.dir, sandboxPath: skill.containerDir }))
    .sort((a, b) => (a.sandboxPath < b.sandboxPath ? -1 : a.sandboxPath > b.sandboxPath ? 1 : 0));
  const mounts: SandboxMount[] = [];
  for (const folder of folders) {
    const covered = mounts.some((mount) => folder.sandboxPath === mount.sandboxPath || folder.sandboxPath.startsWith(`${mount.sandboxPath}/`));
    if (!covered) mounts.push(folder);
  }
  return mounts;
}
