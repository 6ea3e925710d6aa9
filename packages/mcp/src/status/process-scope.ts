import fs from "node:fs";

/**
 * This process's kernel boot id and pid namespace (`<boot id>/pid:[<inode>]`), or undefined where
 * they cannot be read (not Linux). Two processes with the same scope see the same pids, so one may
 * ask the kernel whether the other's pid still runs; in another container or host, it may not.
 */
export function processScope(): string | undefined {
  try {
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const namespace = fs.readlinkSync("/proc/self/ns/pid");
    return boot && namespace ? `${boot}/${namespace}` : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs (signal 0: EPERM means it runs as another user). */
export function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
