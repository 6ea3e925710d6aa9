import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import type { ResolvedSkillPath, SkillsSnapshot } from "@thinktank/skills";
import type { ThreadFolders } from "../request/request-context.js";

/** The skills side of the virtual folders: SkillsSnapshotter fits. */
export interface SkillFiles {
  snapshot(): Promise<SkillsSnapshot>;
  /** Resolves `/mnt/skills/...` for enabled skills only (INVALID_PATH, PATH_TRAVERSAL, SKILL_NOT_FOUND, NOT_FOUND otherwise). */
  resolvePath(virtualPath: string): Promise<ResolvedSkillPath>;
}

export interface VirtualFileSystemOptions {
  readonly skills: SkillFiles;
  /** config.skills.container_path. @default "/mnt/skills" */
  readonly containerPath?: string;
  readonly folders: ThreadFolders;
  /** Creates the thread's workspace (with the sandbox user as owner) and returns it. @default mkdir -p folders.workspace */
  readonly ensureWorkspace?: () => string;
}

/** A virtual path resolved to what is behind it. */
export type VirtualTarget =
  | { readonly kind: "file" | "folder" | "missing"; readonly virtualPath: string; readonly hostPath: string; readonly writable: boolean; readonly root: string }
  | { readonly kind: "listing"; readonly virtualPath: string; readonly entries: readonly string[] };

const userDataRoot = "/mnt/user-data";
const userFolders = ["outputs", "uploads", "workspace"] as const;

/**
 * The folders the model's file tools see: /mnt/skills (read-only; enabled skills only, through
 * the skills snapshot) and /mnt/user-data/{workspace,uploads,outputs} of one thread (workspace
 * and outputs writable). Refused with a code: relative paths, NUL bytes and backslashes
 * (INVALID_PATH), `..` segments and symlinks that lead out of their folder (PATH_TRAVERSAL),
 * anything else (INVALID_PATH). /, /mnt, /mnt/user-data and the folders above skills list as
 * virtual folders, so `ls` can walk down from the top without revealing disabled skills.
 */
export class VirtualFileSystem {
  private readonly containerPath: string;

  constructor(private readonly options: VirtualFileSystemOptions) {
    this.containerPath = (options.containerPath ?? "/mnt/skills").replace(/\/+$/, "");
  }

  async resolve(virtualPath: unknown): Promise<VirtualTarget> {
    const cleaned = cleanPath(virtualPath);
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
    if (real !== root && !real.startsWith(`${root}${path.sep}`)) {
      throw new ThinktankError("PATH_TRAVERSAL", `${cleaned} leads outside ${userDataRoot}/${folder} (through a symbolic link)`);
    }
    if (missing) return { kind: "missing", virtualPath: cleaned, hostPath: path.join(real, path.relative(existing, hostPath)), writable, root };
    const stats = fs.statSync(real);
    return { kind: stats.isDirectory() ? "folder" : "file", virtualPath: cleaned, hostPath: real, writable, root };
  }
}

/** Checks a virtual path and returns it without '.', empty segments or a trailing slash. */
export function cleanPath(virtualPath: unknown): string {
  if (typeof virtualPath !== "string" || virtualPath === "") throw new ThinktankError("INVALID_PATH", "path: expected an absolute path such as /mnt/user-data/workspace/notes.md");
  const shown = JSON.stringify(virtualPath);
  if (virtualPath.includes("\u0000")) throw new ThinktankError("INVALID_PATH", `path ${JSON.stringify(virtualPath.replaceAll("\u0000", "\\0"))} contains a NUL byte`);
  if (virtualPath.includes("\\")) throw new ThinktankError("INVALID_PATH", `path ${shown} contains a backslash; use '/'`);
  if (!virtualPath.startsWith("/")) throw new ThinktankError("INVALID_PATH", `path ${shown} must be absolute, e.g. /mnt/user-data/workspace/${virtualPath}`);
  const segments = virtualPath.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new ThinktankError("PATH_TRAVERSAL", `path ${shown} contains '..'; give the full path instead`);
  return `/${segments.join("/")}`;
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
