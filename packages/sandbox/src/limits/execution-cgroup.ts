import fs from "node:fs";
import path from "node:path";

/** A writable memory cgroup hierarchy: executions get their own cgroups under `parentDir`. */
export interface MemoryCgroups {
  readonly mode: "cgroup-v2" | "cgroup-v1";
  readonly version: 1 | 2;
  /** The cgroup this process runs in (where `parentDir` and stale `thinktank-<pid>` folders live). */
  readonly baseDir: string;
  /** `thinktank-<pid>` under `baseDir`: this process's executions, one `exec-<n>` each. */
  readonly parentDir: string;
}

const mebibyte = 1024 * 1024;
let sequence = 0;

/**
 * One execution's memory cgroup (`thinktank-<pid>/exec-<n>`): every process of the execution joins
 * it before the program starts, so memory_mb bounds them together. Removed after the execution,
 * with anything still in it killed.
 */
export class ExecutionCgroup {
  private constructor(
    readonly dir: string,
    private readonly version: 1 | 2,
  ) {}

  /** Creates the cgroup with its limit (synchronous: a mkdir and a few small writes). Throws when the hierarchy refuses. */
  static create(cgroups: MemoryCgroups, memoryMb: number): ExecutionCgroup {
    const dir = path.join(cgroups.parentDir, `exec-${++sequence}`);
    try {
      fs.mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      ensureParent(cgroups);
      fs.mkdirSync(dir);
    }
    const bytes = String(memoryMb * mebibyte);
    try {
      if (cgroups.version === 2) {
        fs.writeFileSync(path.join(dir, "memory.max"), bytes);
        // No swap beyond the limit, and an OOM kill takes the whole execution, not one process of it.
        writeIfPresent(path.join(dir, "memory.swap.max"), "0");
        writeIfPresent(path.join(dir, "memory.oom.group"), "1");
      } else {
        fs.writeFileSync(path.join(dir, "memory.limit_in_bytes"), bytes);
        // Memory + swap at the same bound (present when swap accounting is on; must not be below the limit above).
        writeIfPresent(path.join(dir, "memory.memsw.limit_in_bytes"), bytes);
      }
    } catch (error) {
      fs.rmdirSync(dir);
      throw error;
    }
    return new ExecutionCgroup(dir, cgroups.version);
  }

  /**
   * How a single-threaded process moves itself in: it writes `value` (shell syntax) to `file`. On
   * cgroup v1, "0" (the writing thread) to `tasks`: moving only the writing thread lets the kernel
   * skip its global threadgroup lock, whose first writer after a pause waits out an RCU grace period
   * (~10 ms on the launch path, measured on 6.18); a shell is one thread, so the whole process moves.
   * Else (v2, where cgroup.threads moves threads only within threaded cgroups, or a v1 `tasks` this
   * process may not write) the process writes its pid to cgroup.procs.
   */
  get selfJoin(): { readonly file: string; readonly value: string } {
    const tasks = path.join(this.dir, "tasks");
    if (this.version === 1 && isWritable(tasks)) return { file: tasks, value: "0" };
    return { file: path.join(this.dir, "cgroup.procs"), value: "$$" };
  }

  /** How many processes the kernel killed here for lack of memory (memory.events on v2, memory.oom_control on v1). */
  oomKills(): number {
    try {
      const text = fs.readFileSync(path.join(this.dir, this.version === 2 ? "memory.events" : "memory.oom_control"), "utf8");
      return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /** Kills what is left in the cgroup and removes it. Never rejects. */
  remove(): Promise<boolean> {
    return removeCgroup(this.dir, this.version);
  }
}

/** Creates this process's parent cgroup if it is missing (another executor may have removed it when it closed). */
export function ensureParent(cgroups: MemoryCgroups): void {
  try {
    fs.mkdirSync(cgroups.parentDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // cgroup v2: the executions below get the memory controller (the parent itself holds no process).
  if (cgroups.version === 2) fs.writeFileSync(path.join(cgroups.parentDir, "cgroup.subtree_control"), "+memory");
}

/** Removes this process's parent cgroup when no execution cgroup is left in it (best effort). */
export function releaseParent(cgroups: MemoryCgroups): void {
  try {
    fs.rmdirSync(cgroups.parentDir);
  } catch {
    // executions of another executor still run, or it is gone already
  }
}

/**
 * Kills every task in a cgroup (and its child cgroups' tasks are not looked at: callers remove
 * children first) and removes it, retrying while the killed tasks finish exiting. True once gone.
 */
export async function removeCgroup(dir: string, version: 1 | 2): Promise<boolean> {
  for (let attempt = 0; attempt < 220; attempt++) {
    if (version === 2) writeIfPresent(path.join(dir, "cgroup.kill"), "1");
    for (const pid of tasksOf(dir)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    try {
      fs.rmdirSync(dir);
      return true;
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === "ENOENT") return true;
      if (code !== "EBUSY") return false;
    }
    // Killed tasks leave the cgroup once they have finished exiting (bubblewrap's pid 1 is often still
    // exiting when bubblewrap has reported its status: a millisecond or two).
    await new Promise((resolve) => setTimeout(resolve, attempt < 20 ? 1 : 10));
  }
  return false;
}

function tasksOf(dir: string): number[] {
  try {
    return fs.readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function isWritable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function writeIfPresent(file: string, value: string): void {
  try {
    fs.writeFileSync(file, value);
  } catch {
    // not on this kernel or configuration
  }
}
