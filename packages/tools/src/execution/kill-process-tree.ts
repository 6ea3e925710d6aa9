import fs from "node:fs";

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

/** Every process whose chain of parents reaches `rootPid` (Linux /proc; empty elsewhere). */
export function descendantsOf(rootPid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name (field 2) may hold spaces and parentheses: fields resume after the last ")".
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {
      // exited while we looked
    }
  }
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
