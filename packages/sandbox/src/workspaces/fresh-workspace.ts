import fs from "node:fs";
import path from "node:path";
import { isProcessAlive } from "@thinktank/core";

/** `run-<pid>-<random>`: the pid of the process that made it, so a later process can tell a crashed one's leftovers. */
const runFolder = /^run-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Makes a new, empty workspace for one run under `parentDir` (created searchable but not listable,
 * 0711, as the thread workspaces' folder is): private to its owner (0700), the sandbox user when the
 * host runs as root, else the host user. No other run can find or enter it.
 */
export function createFreshWorkspace(parentDir: string, owner?: { uid: number; gid: number }): string {
  fs.mkdirSync(parentDir, { recursive: true, mode: 0o711 });
  const folder = fs.mkdtempSync(path.join(parentDir, `run-${process.pid}-`));
  if (owner) fs.chownSync(folder, owner.uid, owner.gid);
  return folder;
}

/**
 * Removes a run's workspace with whatever the program left in it, including folders it made
 * unreadable (as the host user, who is the sandbox user when not root). Links are never followed.
 */
export function removeFreshWorkspace(folder: string): void {
  try {
    fs.rmSync(folder, { recursive: true, force: true });
  } catch {
    openUp(folder);
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Removes the run folders under `parentDir` whose process is gone (a crash left them); never a live process's. */
export function removeStaleFreshWorkspaces(parentDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(parentDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = runFolder.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isProcessAlive(Number(pid))) continue;
    try {
      removeFreshWorkspace(path.join(parentDir, name));
    } catch {
      // another process removes it, or it is not ours to remove
    }
  }
}

function openUp(folder: string): void {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(folder);
  } catch {
    return;
  }
  if (!stats.isDirectory()) return;
  try {
    fs.chmodSync(folder, 0o700);
    for (const name of fs.readdirSync(folder)) openUp(path.join(folder, name));
  } catch {
    // rmSync reports what is still in the way
  }
}
