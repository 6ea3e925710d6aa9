import fs, { constants } from "node:fs";
import path from "node:path";
import { isInsideFolder } from "@thinktank/core";

/** Linux's O_PATH (the same number on every architecture Node runs on there); Node does not export it. */
const O_PATH = 0o10000000;
/** Where /proc is missing (a bare chroot), the folders are checked by real path as elsewhere. */
const pinnable = process.platform === "linux" && fs.existsSync("/proc/self/fd");
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO a program left in the folder opens at once (and is then refused as not a file) instead of blocking. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * A folder held open, so that what is read, written, created and chowned is in that folder whatever
 * a sandboxed program of the thread swaps in meanwhile (bash and execute_code write the workspace and
 * outputs while the model's file tools run). On Linux it is opened with O_PATH and O_NOFOLLOW (a link
 * in its place is refused), its real path (/proc/self/fd/N) must lie inside the root, and what is in
 * it is reached through /proc/self/fd/N/<name>: the kernel resolves that magic link to the very folder
 * held, which is openat() without openat(). Elsewhere (macOS and Windows, the deno backend) the folder's
 * real path is checked and then used by path, as before: a program swapping a folder for a link at
 * that moment still wins the race there.
 */
export interface HeldFolder {
  /** A path that reaches this very folder: /proc/self/fd/N on Linux, its real path elsewhere. */
  readonly at: string;
  close(): void;
}

/** How a walk refuses, in the caller's words. */
export interface HeldFolderRefusals {
  /** A folder or file on the way is (or became) a symbolic link, or lies outside the root. */
  escape(): Error;
  /** Something on the way does not exist (and is not to be created). */
  missing(): Error;
}

/** The owner given to what is created: the root's, when this process runs as root and the root is not root's. */
export interface FolderOwner {
  readonly uid: number;
  readonly gid: number;
}

export interface HoldOptions {
  /** Create missing folders on the way, one at a time through the folder above, each held once made. */
  readonly create?: boolean;
}

/**
 * Holds `root` (a real path), then each of `names` below it in turn, and runs `work` with the last
 * one (the root itself for no names) and the owner for new files and folders; closes them after.
 * Refuses with `refusals.escape()` a folder that is a link or lies outside the root, with
 * `refusals.missing()` one that does not exist (unless `create`).
 */
export function withHeldFolder<T>(root: string, names: readonly string[], refusals: HeldFolderRefusals, options: HoldOptions, work: (folder: HeldFolder, owner: FolderOwner | undefined) => T): T {
  const top = hold(root, root, refusals);
  let folder = top;
  try {
    const owner = options.create ? adoptableOwner(top) : undefined;
    for (const name of names) {
      const next = holdChild(folder, name, root, refusals, options.create === true, owner);
      if (folder !== top) folder.close();
      folder = next;
    }
    return work(folder, owner);
  } finally {
    if (folder !== top) folder.close();
    top.close();
  }
}

/**
 * Opens `name` in the held folder without following a link there (a link is refused with
 * `refusals.escape()`, a missing file with `refusals.missing()` unless `flags` create it). Answers the
 * file descriptor. Never give O_TRUNC: check what was opened first, then truncate through the descriptor.
 */
export function openInFolder(folder: HeldFolder, name: string, flags: number, refusals: HeldFolderRefusals): number {
  const file = path.join(folder.at, name);
  try {
    return fs.openSync(file, flags | O_NOFOLLOW | O_NONBLOCK, 0o666);
  } catch (error) {
    throw refused(error, file, refusals);
  }
}

function hold(folder: string, root: string, refusals: HeldFolderRefusals): HeldFolder {
  let held: HeldFolder | undefined;
  try {
    held = pinFolder(folder, root);
  } catch (error) {
    throw refused(error, folder, refusals);
  }
  if (!held) throw refusals.escape();
  return held;
}

/**
 * `folder` held (see HeldFolder) when it is a folder, not a link, and lies inside `root` (a real
 * path); undefined when it lies outside. Throws what opening it throws (ENOENT, ELOOP, ENOTDIR).
 * The disk-quota walk holds each folder it counts with it too.
 */
export function pinFolder(folder: string, root: string): HeldFolder | undefined {
  if (!pinnable) {
    const real = fs.realpathSync(folder);
    return isInsideFolder(root, real) ? { at: real, close: () => undefined } : undefined;
  }
  const fd = fs.openSync(folder, O_PATH | O_NOFOLLOW | constants.O_DIRECTORY);
  const at = `/proc/self/fd/${fd}`;
  let real = "";
  try {
    real = fs.readlinkSync(at);
  } catch {
    // not inside
  }
  if (!isInsideFolder(root, real)) {
    fs.closeSync(fd);
    return undefined;
  }
  return { at, close: () => fs.closeSync(fd) };
}

/** Holds `name` in `folder`; when missing and `create`, makes it through the held folder first and hands it to `owner`. */
function holdChild(folder: HeldFolder, name: string, root: string, refusals: HeldFolderRefusals, create: boolean, owner: FolderOwner | undefined): HeldFolder {
  const child = path.join(folder.at, name);
  let made = false;
  if (create) {
    try {
      fs.mkdirSync(child);
      made = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw refused(error, child, refusals);
    }
  }
  const held = hold(child, root, refusals);
  if (made && owner) {
    try {
      // On Linux held.at is /proc/self/fd/N: chown follows that magic link to the folder held, and to nothing else.
      fs.chownSync(held.at, owner.uid, owner.gid);
    } catch (error) {
      held.close();
      throw error;
    }
  }
  return held;
}

function adoptableOwner(root: HeldFolder): FolderOwner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const stats = fs.statSync(root.at);
  return stats.uid === 0 ? undefined : { uid: stats.uid, gid: stats.gid };
}

/**
 * What a failed open of `file` answers: missing for ENOENT, an escape for ELOOP (O_NOFOLLOW met a
 * link); for ENOTDIR, the error itself when a file stands there, else an escape (a link, or whatever
 * replaced one since).
 */
function refused(error: unknown, file: string, refusals: HeldFolderRefusals): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return refusals.missing();
  if (code === "ELOOP") return refusals.escape();
  if (code !== "ENOTDIR") return error;
  const stats = fs.lstatSync(file, { throwIfNoEntry: false });
  return stats && !stats.isDirectory() && !stats.isSymbolicLink() ? error : refusals.escape();
}
