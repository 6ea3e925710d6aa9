import fs from "node:fs";
import path from "node:path";
import type { SandboxMount } from "../sandbox-types.js";

export interface WritableMountOptions {
  /** The host process runs as root, so the sandbox runs as `sandboxIds`. */
  readonly asRoot: boolean;
  readonly sandboxIds: { readonly uid: number; readonly gid: number };
}

/**
 * Makes sure the sandbox user can write every writable mount, before a worker starts.
 *
 * As root (the sandbox runs as `sandboxIds`): a folder the sandbox user owns is used as it is; a
 * folder root owns is handed to the sandbox user, as the workspace is, together with whatever root
 * wrote in it (lchown, never following links), so the sandbox may change a file the host wrote
 * there; a folder of any other user is refused rather than taken over. Not as root (the sandbox
 * user maps to the host user): the host user must be able to write the folder.
 */
export function prepareWritableMounts(mounts: readonly SandboxMount[], options: WritableMountOptions): { ok: true } | { ok: false; code: "INVALID_PATH"; message: string } {
  for (const [index, mount] of mounts.entries()) {
    if (!mount.writable) continue;
    const problem = options.asRoot ? handOver(mount.hostPath, options.sandboxIds) : checkWritable(mount.hostPath);
    if (problem) return { ok: false, code: "INVALID_PATH", message: `mounts[${index}] (${mount.sandboxPath}): ${problem}` };
  }
  return { ok: true };
}

function handOver(folder: string, owner: { readonly uid: number; readonly gid: number }): string | undefined {
  const stats = fs.statSync(folder);
  if (stats.uid !== owner.uid) {
    if (stats.uid !== 0) {
      return `${folder} is owned by uid ${stats.uid}; the sandbox writes as uid ${owner.uid} and does not take over another user's folder (give it to uid ${owner.uid} or to root)`;
    }
    fs.chownSync(folder, owner.uid, owner.gid);
    adoptRootEntries(folder, owner);
  }
  if ((stats.mode & 0o300) !== 0o300) return `${folder} is not writable by its owner (mode ${(stats.mode & 0o777).toString(8)}); give the owner rwx`;
  return undefined;
}

/** Hands everything under `folder` that root owns to `owner`; links are changed, never followed. */
function adoptRootEntries(folder: string, owner: { readonly uid: number; readonly gid: number }): void {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const child = path.join(folder, entry.name);
    if (fs.lstatSync(child).uid === 0) fs.lchownSync(child, owner.uid, owner.gid);
    if (entry.isDirectory()) adoptRootEntries(child, owner);
  }
}

function checkWritable(folder: string): string | undefined {
  try {
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK);
    return undefined;
  } catch {
    return `${folder} is not writable by this user (uid ${process.getuid?.() ?? "unknown"}), so the sandbox could not write it either`;
  }
}
