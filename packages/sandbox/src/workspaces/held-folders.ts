import fs from "node:fs/promises";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { isInsideFolder } from "@thinktank/core";

/** Linux's O_PATH (the same number on every architecture Node runs on there); Node does not export it. */
const O_PATH = 0o10000000;
const pinnable = process.platform === "linux";
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
  close(): Promise<void>;
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
export async function withHeldFolder<T>(
  root: string,
  names: readonly string[],
  refusals: HeldFolderRefusals,
  options: HoldOptions,
  work: (folder: HeldFolder, owner: FolderOwner | undefined) => Promise<T>,
): Promise<T> {
  const top = await hold(root, root, refusals);
  let folder = top;
  try {
    const owner = options.create ? await adoptableOwner(top) : undefined;
    for (const name of names) {
      const next = await holdChild(folder, name, root, refusals, options.create === true, owner);
      if (folder !== top) await folder.close();
      folder = next;
    }
    return await work(folder, owner);
  } finally {
    if (folder !== top) await folder.close();
    await top.close();
  }
}

/**
 * Opens `name` in the held folder without following a link there (a link is refused with
 * `refusals.escape()`, a missing file with `refusals.missing()` unless `flags` create it). Never give
 * O_TRUNC: check what was opened first, then truncate through the handle.
 */
export async function openInFolder(folder: HeldFolder, name: string, flags: number, refusals: HeldFolderRefusals): Promise<FileHandle> {
  const file = path.join(folder.at, name);
  try {
    return await fs.open(file, flags | O_NOFOLLOW | O_NONBLOCK, 0o666);
  } catch (error) {
    throw await refused(error, file, refusals);
  }
}

async function hold(folder: string, root: string, refusals: HeldFolderRefusals): Promise<HeldFolder> {
  let held: HeldFolder | undefined;
  try {
    held = await pin(folder, root);
  } catch (error) {
    throw await refused(error, folder, refusals);
  }
  if (!held) throw refusals.escape();
  return held;
}

async function pin(folder: string, root: string): Promise<HeldFolder | undefined> {
  if (!pinnable) {
    const real = await fs.realpath(folder);
    return isInsideFolder(root, real) ? { at: real, close: async () => undefined } : undefined;
  }
  const handle = await fs.open(folder, O_PATH | O_NOFOLLOW | constants.O_DIRECTORY);
  const at = `/proc/self/fd/${handle.fd}`;
  const real = await fs.readlink(at).catch(() => "");
  if (!isInsideFolder(root, real)) {
    await handle.close();
    return undefined;
  }
  return { at, close: () => handle.close() };
}

/** Holds `name` in `folder`; when missing and `create`, makes it through the held folder first and hands it to `owner`. */
async function holdChild(folder: HeldFolder, name: string, root: string, refusals: HeldFolderRefusals, create: boolean, owner: FolderOwner | undefined): Promise<HeldFolder> {
  const child = path.join(folder.at, name);
  let made = false;
  if (create) {
    try {
      await fs.mkdir(child);
      made = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw await refused(error, child, refusals);
    }
  }
  const held = await hold(child, root, refusals);
  if (made && owner) {
    try {
      // On Linux held.at is /proc/self/fd/N: chown follows that magic link to the folder held, and to nothing else.
      await fs.chown(held.at, owner.uid, owner.gid);
    } catch (error) {
      await held.close();
      throw error;
    }
  }
  return held;
}

async function adoptableOwner(root: HeldFolder): Promise<FolderOwner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const stats = await fs.stat(root.at);
  return stats.uid === 0 ? undefined : { uid: stats.uid, gid: stats.gid };
}

/**
 * What a failed open of `file` answers: missing for ENOENT; for ELOOP or ENOTDIR, the error itself
 * when a file (not a folder) stands there, and an escape otherwise (a link, or whatever replaced one).
 */
async function refused(error: unknown, file: string, refusals: HeldFolderRefusals): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return refusals.missing();
  if (code !== "ELOOP" && code !== "ENOTDIR") return error;
  const stats = await fs.lstat(file).catch(() => undefined);
  return stats && !stats.isDirectory() && !stats.isSymbolicLink() ? error : refusals.escape();
}
