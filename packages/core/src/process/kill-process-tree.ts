import fs from "node:fs";
import { descendantsOf } from "./descendants-of.js";

/**
 * Kills a process, its process group and every descendant still attached to it (found through
 * /proc), so a program cannot outlive its timeout or a cancel by forking. Used by the sandbox's
 * launchers and by registered script tools. Without a pid namespace a descendant that has already
 * been re-parented to init cannot be found here: the bubblewrap backend (a pid namespace) and,
 * where a memory cgroup is writable, the sandbox's per-execution cgroup (every task in it is
 * killed) catch those too.
 */
export function killProcessTree(rootPid: number): void {
  // Freeze first, so nothing forks or re-parents between looking and killing; repeat until no new process appears.
  const victims = new Set<number>([rootPid]);
  signal(rootPid, "SIGSTOP");
  for (let round = 0; round < 10; round++) {
    const fresh = descendantsOf(rootPid).filter((pid) => !victims.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      victims.add(pid);
      signal(pid, "SIGSTOP");
    }
  }
  signal(-rootPid, "SIGKILL");
  for (const pid of victims) signal(pid, "SIGKILL");
}

/**
 * Kills a process's direct children, freezing it meanwhile so it cannot start another, then lets it
 * run on to reap them and exit (the caller kills it if it does not); a process without children is
 * killed at once. For bubblewrap the direct child
 * is the sandbox's pid 1, whose death takes the whole pid namespace with it. Killing bubblewrap alone
 * is not enough: while it is still setting the sandbox up, its child would wait forever for a signal
 * that never comes, and an orphaned child is left as a zombie for init.
 */
export function killChildren(pid: number): void {
  signal(pid, "SIGSTOP");
  const children: number[] = [];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const list = fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (list) children.push(...list.split(/\s+/).map(Number));
    }
  } catch {
    // already gone
  }
  for (const child of children) signal(child, "SIGKILL");
  // No child yet (bubblewrap has not cloned, or a wrapper has not exec'd it): nothing can be stranded, kill it outright.
  signal(pid, children.length === 0 ? "SIGKILL" : "SIGCONT");
}

/** Kills what is left of a process group whose leader has exited. (The group id cannot be reused while members remain.) */
export function killProcessGroup(groupId: number): void {
  signal(-groupId, "SIGKILL");
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
