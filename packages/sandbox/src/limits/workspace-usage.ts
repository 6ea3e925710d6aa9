import fs from "node:fs/promises";
import path from "node:path";
import type { Dirent } from "node:fs";

/** Every file or folder counts as at least this much, so a flood of empty files is bounded too. */
export const minimumEntryBytes = 4096;

/**
 * Disk used under the folders, in bytes: the blocks each file really occupies (a sparse file counts
 * what it allocated), at least 4 KiB per entry. Symlinks are not followed. A folder the program made
 * unreadable to hide what it holds is made readable again (the host owns the workspace) and counted.
 */
export async function workspaceUsage(folders: readonly string[]): Promise<number> {
  let total = 0;
  const pending = [...folders];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EACCES") continue;
      try {
        await fs.chmod(folder, 0o700);
        entries = await fs.readdir(folder, { withFileTypes: true });
      } catch {
        continue;
      }
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      try {
        const stats = await fs.lstat(full);
        total += Math.max(stats.blocks * 512, minimumEntryBytes);
      } catch {
        continue; // removed while counting
      }
      if (entry.isDirectory()) pending.push(full);
    }
  }
  return total;
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
