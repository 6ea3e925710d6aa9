import fs from "node:fs";

/**
 * Whether a process of this host is still running. Signal 0 tests existence without touching
 * it (EPERM means it exists under another user); a zombie (exited, not yet reaped) counts as gone.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return true; // no /proc (not Linux): signal 0 is all we know
  }
}
