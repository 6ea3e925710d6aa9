import path from "node:path";
import { userFolderName, type Config } from "@thinktank/core";
import { UserMemory, type MemoryLimits } from "./user-memory.js";

export interface MemoryStoreOptions {
  /** The folder every user's memory lives under (`<data_dir>/memory`); each user has `<root>/<userFolderName(id)>`. */
  readonly root: string;
  /** memory.max_files and memory.max_kb (in bytes here). */
  readonly limits: MemoryLimits;
}

/**
 * Every user's memory, as files under the data folder: `<data_dir>/memory/<user folder>/`, the folder
 * named from the user id alone as their own skills folder is (core's userFolderName), so one user's
 * memory is never reachable from another's. Replicas share it as they share the data folder. One
 * store per process (the agent's runtime, the gateway): it keeps the per-user queue that serializes
 * each user's mutations.
 */
export class MemoryStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(readonly options: MemoryStoreOptions) {}

  /** The store over config's data folder and caps. */
  static fromConfig(config: Pick<Config, "data_dir" | "memory">): MemoryStore {
    return new MemoryStore({ root: path.join(config.data_dir, "memory"), limits: { maxFiles: config.memory.max_files, maxBytes: config.memory.max_kb * 1024 } });
  }

  /** One user's memory (cheap: make one per request). */
  forUser(userId: string): UserMemory {
    return new UserMemory(userId, this.folderOf(userId), this.options.limits, (work) => this.enqueue(userId, work));
  }

  /** Where a user's memory lives on the host. */
  folderOf(userId: string): string {
    return path.join(this.options.root, userFolderName(userId));
  }

  private enqueue<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(userId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(userId, settled);
    void settled.then(() => {
      if (this.queues.get(userId) === settled) this.queues.delete(userId);
    });
    return next;
  }
}
