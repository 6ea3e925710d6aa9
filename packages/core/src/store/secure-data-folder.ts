import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config/config-types.js";
import { unprivilegedIds } from "../process/unprivileged-ids.js";

export interface SecureDataFolderOptions {
  /** The service's uid: as root with an isolating sandbox backend, sandboxes run as unprivilegedIds and need to traverse the data folder. @default process.getuid() */
  readonly hostUid?: number;
}

/** The parts of the configuration that name private files. */
export type PrivateFilesConfig = Pick<Config, "data_dir" | "extensions_config" | "log" | "agent" | "sandbox">;

/**
 * Makes the data folder and the private files the configuration names unreachable by other local
 * users, creating the data folder when missing and tightening an existing install (both services
 * call it at start): the data folder (and the workspaces folder) 0700, or 0710 with the sandbox
 * user's group when the service runs as root and sandboxes drop to that user (they traverse it to
 * their workspaces, and list nothing); the threads database with its journal files, the log folder
 * (the tools execution log), the OAuth token store (keys, tokens, sign-ins) and
 * extensions_config.json 0600 for files, 0700 for folders. Links below the two top folders are never
 * followed. Answers the paths whose mode or group it changed, and what it could not change (a file
 * of another user, say), for the start-up log.
 */
export function secureDataFolder(config: PrivateFilesConfig, options: SecureDataFolderOptions = {}): { changed: string[]; problems: string[] } {
  const hostUid = options.hostUid ?? process.getuid?.() ?? -1;
  const traverseGroup = hostUid === 0 && config.sandbox.backend !== "local" ? unprivilegedIds.gid : undefined;
  const result = { changed: [] as string[], problems: [] as string[] };
  const folderMode = traverseGroup === undefined ? 0o700 : 0o710;
  for (const folder of [config.data_dir, config.sandbox.workspaces_dir]) {
    fs.mkdirSync(folder, { recursive: true, mode: folderMode });
    tighten(fs.realpathSync(folder), folderMode, result, traverseGroup);
  }
  const database = config.agent.threads.sqlite_path;
  for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}-journal`, config.extensions_config]) tighten(file, 0o600, result);
  for (const tree of [config.log.dir, path.join(config.data_dir, "oauth")]) tightenTree(tree, result);
  return result;
}

/** A folder and everything under it: folders 0700, files 0600. */
function tightenTree(root: string, result: Changes): void {
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    if (!tighten(folder, 0o700, result)) continue;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) tighten(full, 0o600, result);
    }
  }
}

interface Changes {
  readonly changed: string[];
  readonly problems: string[];
}

/** Sets the mode (and group) of an existing folder or file that is not a link; false when there is none. */
function tighten(target: string, mode: number, result: Changes, group?: number): boolean {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(target);
  } catch {
    return false;
  }
  if (stats.isSymbolicLink()) return false;
  try {
    if (group !== undefined && stats.gid !== group) fs.chownSync(target, -1, group);
    if ((stats.mode & 0o7777) !== mode) fs.chmodSync(target, mode);
    if ((group !== undefined && stats.gid !== group) || (stats.mode & 0o7777) !== mode) result.changed.push(target);
  } catch (error) {
    result.problems.push(`${target}: ${(error as Error).message}`);
  }
  return true;
}
