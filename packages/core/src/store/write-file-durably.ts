import fs from "node:fs";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";

/**
 * Replaces a file whole and makes it survive a crash: write-file-atomic (temp file, fsync,
 * rename), then an fsync of the folder so the rename itself is on disk.
 */
export async function writeFileDurably(file: string, data: string | Buffer, options: { readonly mode?: number } = {}): Promise<void> {
  await writeFileAtomic(file, data, { fsync: true, ...(options.mode === undefined ? {} : { mode: options.mode }) });
  await syncFolder(path.dirname(file));
}

/** Some file systems refuse fsync on a folder, which is fine. */
async function syncFolder(folder: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(folder, "r");
    await handle.sync();
  } catch {
    // not supported here
  } finally {
    await handle?.close();
  }
}
