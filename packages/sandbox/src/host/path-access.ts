import fs from "node:fs";
import path from "node:path";

/**
 * Whether a process running as `uid`/`gid` (no supplementary groups) can reach `target`: every folder
 * above it must grant search (x) permission. bubblewrap resolves bind sources with the sandbox user's
 * rights, so a source under /root (mode 0700) is out of reach of an unprivileged sandbox user.
 */
export function isReachableBy(target: string, uid: number, gid: number): boolean {
  let current = path.dirname(target);
  for (;;) {
    let stats: fs.Stats;
    try {
      stats = fs.statSync(current);
    } catch {
      return false;
    }
    if (uid !== 0) {
      const bit = stats.uid === uid ? 0o100 : stats.gid === gid ? 0o010 : 0o001;
      if ((stats.mode & bit) === 0) return false;
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}
