import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ThinktankError } from "../errors/thinktank-error.js";
import { isProcessAlive as defaultIsProcessAlive, processStartTime } from "./process-alive.js";

export interface FileLockOptions {
  /** A lock whose heartbeat has not changed for this long (by the waiter's own clock) is taken over, whoever holds it. @default 10000 */
  readonly staleMs?: number;
  /** How often the holder beats. @default staleMs / 4 (at least 100) */
  readonly refreshMs?: number;
  /** Give up waiting (STORE_BUSY) after this long. @default 30000 */
  readonly timeoutMs?: number;
  /** Polling delay while another process holds the lock, grows from 2 ms up to this. @default 50 */
  readonly maxRetryDelayMs?: number;
  /** This machine's name, written into the lock; a holder on the same host is checked by pid. @default os.hostname() */
  readonly hostname?: string;
  /** This process's id. @default process.pid */
  readonly pid?: number;
  /** Whether a process of this host is still running (and, given its recorded start time, is the same process). @default signal 0, zombie and start-time checks */
  readonly isProcessAlive?: (pid: number, startTime?: string) => boolean;
  /** Wall clock: written into the lock, and compared with the change times of leftovers. @default Date.now */
  readonly now?: () => number;
}

/** What a lock folder says about its holder (`owner.json`). */
interface LockOwner {
  readonly token: string;
  readonly pid: number;
  readonly hostname: string;
  readonly acquiredAt: string;
  /** The holder's start time (see processStartTime), so a reused pid is not taken for it. */
  readonly startTime?: string;
}

/** A held lock: release it exactly once; `assertHeld` checks nobody took it over (before committing a write). */
export interface HeldLock {
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

/** The heartbeat file in a lock folder: a counter the holder rewrites in place every `refreshMs`. */
const heartbeatName = "heartbeat";
const beatText = (beat: number): string => String(beat).padStart(12, "0");

/**
 * A cross-process lock on one file: the folder `<file>.lock` holding `owner.json` and `heartbeat`.
 *
 * Acquiring renames a prepared folder into place, so the lock and its owner appear together. The
 * holder rewrites `heartbeat` through a handle it keeps open, so its beats follow the folder even
 * once it is renamed away. A waiter takes over at once from a holder on this host whose process is
 * gone (pid and start time), and from any holder whose heartbeat it has watched stay unchanged
 * for `staleMs` by its own clock: file times are never trusted, so a lock with a time in the future
 * cannot block writers for good. A stale lock is taken over by renaming it to
 * `<file>.lock.stale-<its token>`: two processes breaking the same lock cannot both succeed,
 * because the second rename finds that name taken (so tombstones are kept until they are inert).
 */
export class FileLock {
  readonly lockPath: string;
  private readonly staleMs: number;
  private readonly refreshMs: number;
  private readonly timeoutMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly hostname: string;
  private readonly pid: number;
  private readonly isProcessAlive: (pid: number, startTime?: string) => boolean;
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

  /** Waits for the lock; STORE_BUSY once `timeoutMs` (this call's, else the lock's) has passed. */
  async acquire(options: { readonly timeoutMs?: number } = {}): Promise<HeldLock> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const startTime = this.pid === process.pid ? processStartTime(this.pid) : undefined;
    // The token names the prepared folder, its tombstone and its released husk; it carries the owner
    // too, for a process killed before its owner.json was written (or while it was being removed).
    const token = `${hostTag(this.hostname)}.${this.pid}.${randomUUID()}`;
    const owner: LockOwner = { token, pid: this.pid, hostname: this.hostname, acquiredAt: new Date(this.now()).toISOString(), ...(startTime ? { startTime } : {}) };
    const prepared = `${this.lockPath}.tmp-${owner.token}`;
    await fs.promises.mkdir(prepared);
    let heartbeat: fs.promises.FileHandle | undefined;
    try {
      await fs.promises.writeFile(path.join(prepared, "owner.json"), JSON.stringify(owner));
      heartbeat = await fs.promises.open(path.join(prepared, heartbeatName), "w");
      await heartbeat.write(beatText(0), 0);
      const deadline = performance.now() + timeoutMs;
      const watched: WatchedBeat = { signature: "", since: 0 };
      let delay = 2;
      for (;;) {
        if (await this.tryRename(prepared)) return this.held(owner, heartbeat);
        if (await this.breakIfStale(watched)) continue;
        if (performance.now() > deadline) {
          throw new ThinktankError("STORE_BUSY", `${this.file}: could not lock it within ${timeoutMs} ms (${await this.describeHolder()})`, {
            details: { file: this.file, lock: this.lockPath },
          });
        }
        await sleep(delay);
        delay = Math.min(this.maxRetryDelayMs, delay * 2);
      }
    } catch (error) {
      await heartbeat?.close().catch(() => undefined);
      await fs.promises.rm(prepared, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Removes what killed processes left beside the lock: prepared (`tmp-`) and released folders
   * whose owner on this host is gone, and any leftover once it is old enough to be inert (a
   * minute, or twice `timeoutMs`; tombstones only then). Returns the names removed.
   */
  async sweepLeftovers(): Promise<string[]> {
    const folder = path.dirname(this.lockPath);
    const prefix = `${path.basename(this.lockPath)}.`;
    let names: string[];
    try {
      names = await fs.promises.readdir(folder);
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of names) {
      const kind = /^(stale|tmp|released)-/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : "")?.[1];
      if (!kind) continue;
      const leftover = path.join(folder, name);
      try {
        const stats = await fs.promises.stat(leftover);
        const inert = this.now() - stats.ctimeMs > Math.max(60_000, 2 * this.timeoutMs);
        const owner = kind === "stale" ? undefined : ((await this.readOwner(leftover)) ?? this.ownerInName(name));
        if (!inert && !(owner && this.isDeadHere(owner))) continue;
        await fs.promises.rm(leftover, { recursive: true, force: true });
        removed.push(name);
      } catch {
        // gone already
      }
    }
    return removed;
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

  private held(owner: LockOwner, heartbeat: fs.promises.FileHandle): HeldLock {
    let beat = 0;
    let beating: Promise<unknown> = Promise.resolve();
    const refresh = setInterval(() => {
      beating = heartbeat.write(beatText(++beat), 0).catch(() => undefined);
    }, this.refreshMs);
    refresh.unref();
    let released = false;
    return {
      assertHeld: async () => {
        const current = await this.readOwner(this.lockPath);
        if (current?.token !== owner.token) {
          throw new ThinktankError("STORE_BUSY", `${this.file}: the lock was taken over by another process (this one stalled for over ${this.staleMs} ms); nothing was written`);
        }
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(refresh);
        await beating;
        await heartbeat.close().catch(() => undefined);
        const current = await this.readOwner(this.lockPath);
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

  /**
   * Takes over the current lock when its holder is gone; true when it did (or the lock vanished
   * meanwhile). `watched` remembers the heartbeat this waiter last saw and since when (its clock).
   */
  private async breakIfStale(watched: WatchedBeat): Promise<boolean> {
    let stats: fs.Stats;
    try {
      stats = await fs.promises.stat(this.lockPath);
    } catch {
      return true; // released meanwhile: try again at once
    }
    const owner = await this.readOwner(this.lockPath);
    const beat = await fs.promises.readFile(path.join(this.lockPath, heartbeatName), "utf8").catch(() => "");
    // A new folder, owner or beat is a sign of life; the folder's mtime covers holders that only touch it.
    const signature = `${stats.ino}:${stats.mtimeMs}:${owner?.token ?? ""}:${beat}`;
    const seenAt = performance.now();
    if (signature !== watched.signature) {
      watched.signature = signature;
      watched.since = seenAt;
    }
    const silent = seenAt - watched.since > this.staleMs;
    if (!silent && !(owner && this.isDeadHere(owner))) return false;
    const tombstone = `${this.lockPath}.stale-${owner?.token ?? `unknown-${stats.ino}-${Math.floor(stats.mtimeMs)}`}`;
    try {
      await fs.promises.rename(this.lockPath, tombstone);
    } catch {
      return true; // someone else broke it first, or it was released: look again
    }
    await this.sweepLeftovers();
    return true;
  }

  /** The owner a leftover's name records (see the token), without its start time. */
  private ownerInName(name: string): Pick<LockOwner, "pid" | "hostname"> | undefined {
    const match = /-([0-9a-f]{8})\.(\d+)\.[0-9a-f-]{36}$/.exec(name);
    if (!match) return undefined;
    return { pid: Number(match[2]), hostname: match[1] === hostTag(this.hostname) ? this.hostname : `host ${match[1]}` };
  }

  private isDeadHere(owner: Pick<LockOwner, "pid" | "hostname" | "startTime">): boolean {
    return owner.hostname === this.hostname && !this.isProcessAlive(owner.pid, owner.startTime);
  }

  private async readOwner(folder: string): Promise<LockOwner | undefined> {
    try {
      const { token, pid, hostname, acquiredAt, startTime } = JSON.parse(await fs.promises.readFile(path.join(folder, "owner.json"), "utf8")) as Partial<LockOwner>;
      if (typeof token === "string" && typeof pid === "number" && typeof hostname === "string") {
        return { token, pid, hostname, acquiredAt: String(acquiredAt), ...(typeof startTime === "string" ? { startTime } : {}) };
      }
    } catch {
      // missing or unreadable: judged by its heartbeat alone
    }
    return undefined;
  }

  private async describeHolder(): Promise<string> {
    const owner = await this.readOwner(this.lockPath);
    return owner ? `held by pid ${owner.pid} on ${owner.hostname} since ${owner.acquiredAt}` : `${this.lockPath} exists`;
  }
}

/** A heartbeat as one waiter saw it: its signature, and when (performance.now) it last changed. */
interface WatchedBeat {
  signature: string;
  since: number;
}

/** A short, name-safe stand-in for a host name. */
function hostTag(hostname: string): string {
  return createHash("sha256").update(hostname).digest("hex").slice(0, 8);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
