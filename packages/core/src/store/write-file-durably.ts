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

/**
 * The temp files write-file-atomic leaves beside `file` when its writer is killed mid-write:
 * `<file's real path>.<a 32-bit number>`. Only safe to remove while nobody can be writing `file`.
 */
export async function atomicTempFiles(file: string): Promise<string[]> {
  const target = await fs.promises.realpath(file).catch(() => file);
  const folder = path.dirname(target);
  const prefix = `${path.basename(target)}.`;
  const isTempName = (name: string): boolean => {
    const suffix = name.slice(prefix.length);
    return name.startsWith(prefix) && /^\d{1,10}$/.test(suffix) && Number(suffix) <= 0xffff_ffff;
  };
  let names: string[];
  try {
    names = await fs.promises.readdir(folder);
  } catch {
    return [];
  }
  return names.filter(isTempName).map((name) => path.join(folder, name));
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
