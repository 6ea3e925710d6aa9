import fs from "node:fs";

/**
 * Whether a process of this host is still running. Signal 0 tests existence without touching
 * it (EPERM means it exists under another user); a zombie (exited, not yet reaped) counts as gone.
 * With `startTime` (from `processStartTime` when the pid was recorded), a different process that
 * got the same pid since counts as gone too.
 */
export function isProcessAlive(pid: number, startTime?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  const fields = procStatFields(pid);
  if (!fields) return true; // no /proc (not Linux): signal 0 is all we know
  if (fields[0] === "Z" || fields[0] === "X") return false;
  return startTime === undefined || fields[19] === startTime;
}

/** When a process started, in clock ticks since boot (Linux `/proc/<pid>/stat` field 22); undefined elsewhere. */
export function processStartTime(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}

/** The fields of `/proc/<pid>/stat` after the command name, starting at the state (field 3). */
function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}
