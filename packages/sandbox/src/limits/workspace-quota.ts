import { watchUsage, workspaceUsage } from "./workspace-usage.js";

const mebibyte = 1024 * 1024;
/** Workspaces whose last usage is remembered (the oldest is forgotten first). */
const rememberedWorkspaces = 1000;

/**
 * The disk quota of a workspace (with its writable mounts): a run is refused while they are over
 * it, a running program is stopped when a periodic look finds them over it, and after each run they
 * are measured again in the background (off the hot path) for the next run's check. Usage under the
 * quota is trusted until the next run ends; usage over it is measured again before each run, so
 * deleting files on the host lifts the refusal.
 */
export class WorkspaceQuota {
  private readonly usage = new Map<string, Promise<number>>();

  constructor(readonly quotaMb: number) {}

  get quotaBytes(): number {
    return this.quotaMb * mebibyte;
  }

  /** Undefined when a run may start, else why not. */
  async refusal(folders: readonly string[]): Promise<string | undefined> {
    const key = folders.join("\0");
    let usage = await this.usage.get(key);
    if (usage === undefined || usage > this.quotaBytes) usage = await this.measure(folders);
    return usage > this.quotaBytes ? this.overMessage(usage, "runs are refused until files are deleted") : undefined;
  }

  /** Stops the program (through `exceeded`) once the folders pass the quota. */
  watch(folders: readonly string[], exceeded: (message: string) => void): { stop(): void } {
    return watchUsage(folders, this.quotaBytes, (usage) => {
      this.usage.set(folders.join("\0"), Promise.resolve(usage));
      exceeded(this.overMessage(usage, "the program was stopped"));
    });
  }

  /** Measures the folders again (after a run); the next check waits for it. */
  measure(folders: readonly string[]): Promise<number> {
    const key = folders.join("\0");
    const measuring = workspaceUsage(folders);
    this.usage.delete(key);
    this.usage.set(key, measuring);
    if (this.usage.size > rememberedWorkspaces) this.usage.delete(this.usage.keys().next().value as string);
    return measuring;
  }

  private overMessage(usage: number, consequence: string): string {
    return `The workspace uses ${(usage / mebibyte).toFixed(1)} MiB, over its disk quota of ${this.quotaMb} MiB (sandbox.disk_quota_mb): ${consequence}.`;
  }
}
