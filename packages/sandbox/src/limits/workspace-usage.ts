import fs from "node:fs/promises";
import path from "node:path";
import { chmodSync, closeSync, constants, fstatSync, lchmodSync, openSync, type Dirent, type Stats } from "node:fs";
import { pinFolder } from "../workspaces/held-folders.js";

/** Every file or folder counts as at least this much, so a flood of empty files is bounded too. */
export const minimumEntryBytes = 4096;

/**
 * Disk used under the folders, in bytes: the blocks each file really occupies (a sparse file counts
 * what it allocated), at least 4 KiB per entry. Symlinks are not followed, and a folder the program
 * swaps for a link while it is counted is not entered (nothing outside the folders is read or
 * changed). A folder the program made unreadable to hide what it holds is made readable again (the
 * host owns the workspace) and counted. Setuid and setgid bits are stripped from every file and
 * folder on the way (stripSetIdBits): a program the sandbox left setuid must never let another local
 * user run as the sandbox's user.
 */
export async function workspaceUsage(folders: readonly string[]): Promise<number> {
  let total = 0;
  const pending: { folder: string; root: string }[] = [];
  for (const folder of folders) {
    const root = await fs.realpath(folder).catch(() => undefined);
    if (root) pending.push({ folder: root, root });
  }
  while (pending.length > 0) {
    const { folder, root } = pending.pop() as { folder: string; root: string };
    let pinned: ReturnType<typeof pinFolder>;
    try {
      // Held open (O_PATH, no link followed, under the root): what is read and changed is this folder.
      pinned = pinFolder(folder, root);
    } catch {
      continue; // removed, or a link now
    }
    if (!pinned) continue;
    try {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(pinned.at, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EACCES") continue;
        try {
          await fs.chmod(pinned.at, 0o700);
          entries = await fs.readdir(pinned.at, { withFileTypes: true });
        } catch {
          continue;
        }
      }
      for (const entry of entries) {
        try {
          const stats = await fs.lstat(path.join(pinned.at, entry.name));
          if (stats.mode & setIdBits) stripSetIdBits(pinned.at, entry.name, stats.mode);
          total += Math.max(stats.blocks * 512, minimumEntryBytes);
          if (stats.isDirectory()) pending.push({ folder: path.join(folder, entry.name), root });
        } catch {
          continue; // removed while counting
        }
      }
    } finally {
      pinned.close();
    }
  }
  return total;
}

/** S_ISUID and S_ISGID. */
const setIdBits = 0o6000;
/** Linux's O_PATH (as in held-folders.ts); Node does not export it. */
const O_PATH = 0o10000000;

/**
 * Clears the setuid and setgid bits of `name` in a held folder without following a link: on Linux it
 * is opened O_PATH|O_NOFOLLOW, checked to be a file or folder, and changed through its
 * /proc/self/fd link, so a program swapping it for a link meanwhile changes nothing outside the
 * workspace; elsewhere lchmod where the platform has it. Best effort: an entry gone is left alone.
 */
export function stripSetIdBits(folderAt: string, name: string, mode: number): void {
  const entry = path.join(folderAt, name);
  try {
    if (folderAt.startsWith("/proc/self/fd/")) {
      const fd = openSync(entry, O_PATH | constants.O_NOFOLLOW);
      try {
        const stats: Stats = fstatSync(fd);
        if ((stats.isFile() || stats.isDirectory()) && stats.mode & setIdBits) chmodSync(`/proc/self/fd/${fd}`, stats.mode & 0o1777);
      } finally {
        closeSync(fd);
      }
    } else if (process.platform === "darwin") {
      lchmodSync(entry, mode & 0o1777);
    }
  } catch {
    // removed or swapped meanwhile: the next walk looks again
  }
}

/**
 * Measures the folders over and over while a program runs and calls `exceeded` once they pass
 * `quotaBytes`. The first look waits `firstMs`; each next one waits at least five times as long as
 * the last measurement took, so a large workspace is not walked without pause.
 */
export function watchUsage(folders: readonly string[], quotaBytes: number, exceeded: (usage: number) => void, firstMs = 100): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async (): Promise<void> => {
    const started = performance.now();
    const usage = await workspaceUsage(folders);
    if (stopped) return;
    if (usage > quotaBytes) {
      stopped = true;
      exceeded(usage);
      return;
    }
    timer = setTimeout(() => void look(), Math.max(firstMs, 5 * (performance.now() - started)));
  };
  timer = setTimeout(() => void look(), firstMs);
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
