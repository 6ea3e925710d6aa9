import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ThinktankError } from "../errors/thinktank-error.js";
import { isProcessAlive as defaultIsProcessAlive } from "./process-alive.js";

export interface FileLockOptions {
  /** A lock whose folder was not refreshed for this long is taken over, whoever holds it. @default 10000 */
  readonly staleMs?: number;
  /** How often the holder refreshes its lock folder's mtime. @default staleMs / 4 */
  readonly refreshMs?: number;
  /** Give up waiting (STORE_BUSY) after this long. @default 30000 */
  readonly timeoutMs?: number;
  /** Polling delay while another process holds the lock, grows from 2 ms up to this. @default 50 */
  readonly maxRetryDelayMs?: number;
  /** This machine's name, written into the lock; a holder on the same host is checked by pid. @default os.hostname() */
  readonly hostname?: string;
  /** This process's id. @default process.pid */
  readonly pid?: number;
  /** Whether a process of this host is still running. @default signal 0 plus a zombie check */
  readonly isProcessAlive?: (pid: number) => boolean;
  /** Wall clock, compared with file times. @default Date.now */
  readonly now?: () => number;
}

/** What a lock folder says about its holder (`owner.json`). */
interface LockOwner {
  readonly token: string;
  readonly pid: number;
  readonly hostname: string;
  readonly acquiredAt: string;
}

/** A held lock: release it exactly once; `assertHeld` checks nobody took it over (before committing a write). */
export interface HeldLock {
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}


/**
 * A cross-process lock on one file: the folder `<file>.lock` holding `owner.json`.
 *
 * Acquiring renames a prepared folder into place, so the lock and its owner appear together.
 * A holder that crashed on this host is seen at once (its pid is gone) and one on another host
 * once its folder has not been refreshed for `staleMs`. A stale lock is taken over by renaming
 * it to `<file>.lock.stale-<its token>`: two processes breaking the same lock cannot both
 * succeed, because the second rename finds that name taken. Leftovers are swept once they are old
 * enough to be inert (a minute, or twice `timeoutMs`).
 */
export class FileLock {
  readonly lockPath: string;
  private readonly staleMs: number;
  private readonly refreshMs: number;
  private readonly timeoutMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly hostname: string;
  private readonly pid: number;
  private readonly isProcessAlive: (pid: number) => boolean;
  private readonly now: () => number;

  constructor(
    readonly file: string,
    options: FileLockOptions = {},
  ) {
    this.lockPath = `${file}.lock`;
    this.staleMs = options.staleMs ?? 10_000;
    this.refreshMs = options.refreshMs ?? Math.max(100, Math.floor(this.staleMs / 4));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 50;
    this.hostname = options.hostname ?? os.hostname();
    this.pid = options.pid ?? process.pid;
    this.isProcessAlive = options.isProcessAlive ?? defaultIsProcessAlive;
    this.now = options.now ?? Date.now;
  }

  async acquire(): Promise<HeldLock> {
    const owner: LockOwner = { token: randomUUID(), pid: this.pid, hostname: this.hostname, acquiredAt: new Date(this.now()).toISOString() };
    const prepared = `${this.lockPath}.tmp-${owner.token}`;
    await fs.promises.mkdir(prepared);
    await fs.promises.writeFile(path.join(prepared, "owner.json"), JSON.stringify(owner));
    const deadline = this.now() + this.timeoutMs;
    let delay = 2;
    try {
      for (;;) {
        if (await this.tryRename(prepared)) return this.held(owner);
        if (await this.breakIfStale()) continue;
        if (this.now() > deadline) {
          throw new ThinktankError("STORE_BUSY", `${this.file}: could not lock it within ${this.timeoutMs} ms (${await this.describeHolder()})`, {
            details: { file: this.file, lock: this.lockPath },
          });
        }
        await sleep(delay);
        delay = Math.min(this.maxRetryDelayMs, delay * 2);
      }
    } catch (error) {
      await fs.promises.rm(prepared, { recursive: true, force: true });
      throw error;
    }
  }

  private async tryRename(prepared: string): Promise<boolean> {
    try {
      await fs.promises.rename(prepared, this.lockPath);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR") return false;
      throw error;
    }
  }

  private held(owner: LockOwner): HeldLock {
    const refresh = setInterval(() => {
      const seconds = this.now() / 1000;
      fs.promises.utimes(this.lockPath, seconds, seconds).catch(() => undefined);
    }, this.refreshMs);
    refresh.unref();
    let released = false;
    return {
      assertHeld: async () => {
        const current = await this.readOwner();
        if (current?.token !== owner.token) {
          throw new ThinktankError("STORE_BUSY", `${this.file}: the lock was taken over by another process (this one stalled for over ${this.staleMs} ms); nothing was written`);
        }
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(refresh);
        const current = await this.readOwner();
        if (current?.token !== owner.token) return;
        const gone = `${this.lockPath}.released-${owner.token}`;
        try {
          await fs.promises.rename(this.lockPath, gone);
        } catch {
          return;
        }
        await fs.promises.rm(gone, { recursive: true, force: true });
      },
    };
  }

  /** Takes over the current lock when its holder is gone; true when it did (or the lock vanished meanwhile). */
  private async breakIfStale(): Promise<boolean> {
    let stats: fs.Stats;
    try {
      stats = await fs.promises.stat(this.lockPath);
    } catch {
      return true; // released meanwhile: try again at once
    }
    const owner = await this.readOwner();
    const deadHere = owner !== undefined && owner.hostname === this.hostname && !this.isProcessAlive(owner.pid);
    const stale = this.now() - stats.mtimeMs > this.staleMs;
    if (!deadHere && !stale) return false;
    const tombstone = `${this.lockPath}.stale-${owner?.token ?? `unknown-${stats.ino}-${Math.floor(stats.mtimeMs)}`}`;
    try {
      await fs.promises.rename(this.lockPath, tombstone);
    } catch {
      return true; // someone else broke it first, or it was released: look again
    }
    await this.sweepLeftovers();
    return true;
  }

  /** Removes tombstones and half-made lock folders of crashed processes once they are old enough to be inert. */
  private async sweepLeftovers(): Promise<void> {
    const folder = path.dirname(this.lockPath);
    const prefix = `${path.basename(this.lockPath)}.`;
    let names: string[];
    try {
      names = await fs.promises.readdir(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(prefix) || !/^(stale|tmp|released)-/.test(name.slice(prefix.length))) continue;
      const leftover = path.join(folder, name);
      try {
        const stats = await fs.promises.stat(leftover);
        if (this.now() - stats.ctimeMs > Math.max(60_000, 2 * this.timeoutMs)) await fs.promises.rm(leftover, { recursive: true, force: true });
      } catch {
        // gone already
      }
    }
  }

  private async readOwner(): Promise<LockOwner | undefined> {
    try {
      const owner = JSON.parse(await fs.promises.readFile(path.join(this.lockPath, "owner.json"), "utf8")) as Partial<LockOwner>;
      if (typeof owner.token === "string" && typeof owner.pid === "number" && typeof owner.hostname === "string") return owner as LockOwner;
    } catch {
      // missing or unreadable: judged by age alone
    }
    return undefined;
  }

  private async describeHolder(): Promise<string> {
    const owner = await this.readOwner();
    return owner ? `held by pid ${owner.pid} on ${owner.hostname} since ${owner.acquiredAt}` : `${this.lockPath} exists`;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
