import fs from "node:fs";
import path from "node:path";

/**
 * Bytes of the regular files under `folder` (links not followed, counted as nothing; a missing
 * folder is 0). Used for a thread's cap: what is there before an upload commits.
 */
export async function folderBytes(folder: string): Promise<number> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(folder, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let total = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const stats = await fs.promises.lstat(path.join(entry.parentPath, entry.name)).catch(() => undefined);
    if (stats?.isFile()) total += stats.size;
  }
  return total;
}
