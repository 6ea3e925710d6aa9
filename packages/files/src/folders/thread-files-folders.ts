import fs from "node:fs";
import type { Config } from "@thinktank/core";
import { threadFilesDir, threadFolders } from "./thread-folders.js";

/**
 * Removes everything a thread keeps on disk: uploads, outputs, the manifest, staging and its
 * sandbox workspace. Missing folders are fine (a thread that never had files).
 */
export async function removeThreadFolders(config: Pick<Config, "data_dir" | "sandbox">, threadId: string): Promise<void> {
  const folders = threadFolders(config, threadId);
  await fs.promises.rm(threadFilesDir(config, threadId), { recursive: true, force: true });
  await fs.promises.rm(folders.workspace, { recursive: true, force: true });
}

/**
 * Copies a thread's uploads, outputs, manifest and workspace to another thread (whose folders must
 * not hold anything yet). Symbolic links are copied as links, never followed (a link that leads out
 * leads out of the copy as it did of the source, and the file routes never follow it); the staging
 * folder of uploads in progress and special files (FIFOs, sockets, devices) are not copied. As root, the copied workspace gets the source
 * workspace's owner (the sandbox user), so the copy's sandboxed programs can change it.
 */
export async function copyThreadFolders(config: Pick<Config, "data_dir" | "sandbox">, from: string, to: string): Promise<void> {
  const source = threadFolders(config, from);
  const target = threadFolders(config, to);
  const sourceDir = threadFilesDir(config, from);
  const targetDir = threadFilesDir(config, to);
  if (fs.existsSync(sourceDir)) {
    await fs.promises.cp(sourceDir, targetDir, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false, filter: (file) => !file.startsWith(`${sourceDir}/.staging`) && copyable(file) });
  }
  if (fs.existsSync(source.workspace)) {
    await fs.promises.cp(source.workspace, target.workspace, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false, preserveTimestamps: true, filter: copyable });
    await fs.promises.chmod(target.workspace, 0o700);
    const owner = await fs.promises.stat(source.workspace);
    if (process.getuid?.() === 0 && owner.uid !== 0) await chownTree(target.workspace, owner);
  }
}

/** Folders, regular files and links are copied; a FIFO, socket or device a program left is not (cp would fail on it, and the copy with it). */
function copyable(file: string): boolean {
  const stats = fs.lstatSync(file, { throwIfNoEntry: false });
  return stats !== undefined && (stats.isDirectory() || stats.isFile() || stats.isSymbolicLink());
}

async function chownTree(folder: string, owner: { uid: number; gid: number }): Promise<void> {
  await fs.promises.lchown(folder, owner.uid, owner.gid);
  for (const entry of await fs.promises.readdir(folder, { withFileTypes: true, recursive: true })) {
    await fs.promises.lchown(`${entry.parentPath}/${entry.name}`, owner.uid, owner.gid);
  }
}
