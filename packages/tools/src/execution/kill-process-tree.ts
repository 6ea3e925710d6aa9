import { descendantsOf } from "@thinktank/core";

/**
 * Kills a script's whole process tree: its process group (scripts start as group leaders) and
 * every descendant still reachable through /proc, in case one moved to a group of its own.
 * Descendants are collected before anything is killed, while the parent links still exist.
 */
export function killProcessTree(rootPid: number): void {
  const descendants = descendantsOf(rootPid);
  signal(-rootPid);
  signal(rootPid);
  for (const pid of descendants) signal(pid);
}

/** Kills what is left of a process group whose leader has exited. */
export function killGroup(groupId: number): void {
  signal(-groupId);
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
