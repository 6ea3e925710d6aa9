import type { SandboxWorker } from "./sandbox-worker.js";

export interface WarmPoolOptions {
  /** Idle workers kept per key (config.sandbox.warm_pool_size); 0 turns the pool off. */
  readonly size: number;
  /** Keys (workspace × language × mounts × limits) kept warm at once; the least recently used goes first. @default 4 */
  readonly maxKeys: number;
  /** A key's idle workers are stopped after this long without a run. @default 300,000 ms */
  readonly idleMs: number;
}

/** Starts a worker for a key; undefined when it cannot be started. */
export type StartWorker = () => Promise<SandboxWorker | undefined>;

interface PoolEntry {
  readonly workers: SandboxWorker[];
  /** Workers being started. */
  readonly starting: Set<Promise<void>>;
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Pre-started, single-use workers, grouped by key. A worker's mounts (the thread's workspace, the
 * code API) are fixed when bubblewrap starts, so a warm worker can only serve requests that would
 * have started it the same way: the key says which. Refills run after a run has finished, so they
 * never compete with the run they replace.
 */
export class WarmPool {
  private readonly entries = new Map<string, PoolEntry>();
  /** Workers killed because they arrived after close() or after their key was evicted. */
  private readonly stopped = new Set<SandboxWorker>();
  private closed = false;

  constructor(private readonly options: WarmPoolOptions) {}

  /** An idle, live worker for this key whose host folders still have `identity`; stale ones are stopped. */
  take(key: string, identity: string): SandboxWorker | undefined {
    const entry = this.touch(key);
    if (!entry) return undefined;
    // Prefer a worker whose interpreter is already up.
    entry.workers.sort((a, b) => Number(b.isReady) - Number(a.isReady));
    while (entry.workers.length > 0) {
      const worker = entry.workers.shift() as SandboxWorker;
      if (worker.alive && worker.identity === identity) return worker;
      worker.kill();
    }
    return undefined;
  }

  /**
   * Like `take`, but when no idle worker is left and one is being started for the key, waits for it:
   * a worker half-way through start-up is never slower than starting another one.
   */
  async acquire(key: string, identity: string): Promise<SandboxWorker | undefined> {
    const idle = this.take(key, identity);
    if (idle) return idle;
    const entry = this.entries.get(key);
    if (!entry || entry.starting.size === 0) return undefined;
    await Promise.race(entry.starting);
    return this.take(key, identity);
  }

  /** Starts workers until the key has `size` idle ones (or is starting them). */
  refill(key: string, start: StartWorker): void {
    if (this.closed || this.options.size === 0) return;
    const entry = this.touch(key) ?? this.create(key);
    for (let missing = this.options.size - entry.workers.length - entry.starting.size; missing > 0; missing--) {
      const starting: Promise<void> = start().then(
        (worker) => this.admit(key, entry, worker),
        () => undefined,
      );
      entry.starting.add(starting);
      void starting.finally(() => entry.starting.delete(starting));
    }
  }

  /** Idle workers per key (for diagnostics and tests). */
  idleCount(key: string): number {
    return this.entries.get(key)?.workers.filter((worker) => worker.alive).length ?? 0;
  }

  /** Resolves when the key's idle workers are all started and ready (benchmarks wait on it). */
  async settled(key: string): Promise<void> {
    const entry = this.entries.get(key);
    while (entry && entry.starting.size > 0) await Promise.all([...entry.starting]);
    await Promise.all((entry?.workers ?? []).map((worker) => worker.ready));
  }

  /** Stops every idle worker and every worker still starting; resolves when all are gone. Later refills do nothing. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    const starting = entries.flatMap((entry) => [...entry.starting]);
    const workers = entries.flatMap((entry) => {
      if (entry.expiry) clearTimeout(entry.expiry);
      return entry.workers.splice(0);
    });
    for (const worker of workers) worker.kill();
    // Workers that finish starting now are killed on arrival (see `admit`) and collected in `stopped`.
    await Promise.all(starting);
    await Promise.all([...workers, ...this.stopped].map((worker) => worker.whenClosed()));
  }

  private admit(key: string, entry: PoolEntry, worker: SandboxWorker | undefined): void {
    if (!worker) return;
    if (this.closed || this.entries.get(key) !== entry) {
      worker.kill();
      this.stopped.add(worker);
      void worker.whenClosed().then(() => this.stopped.delete(worker));
      return;
    }
    entry.workers.push(worker);
    worker.onExit(() => {
      const index = entry.workers.indexOf(worker);
      if (index >= 0) entry.workers.splice(index, 1);
    });
  }

  private create(key: string): PoolEntry {
    const entry: PoolEntry = { workers: [], starting: new Set(), expiry: undefined };
    this.entries.set(key, entry);
    this.scheduleExpiry(key, entry);
    while (this.entries.size > this.options.maxKeys) {
      const [oldestKey] = this.entries.keys();
      this.evict(oldestKey as string);
    }
    return entry;
  }

  /** Marks the key as most recently used and restarts its idle timer. */
  private touch(key: string): PoolEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.scheduleExpiry(key, entry);
    return entry;
  }

  private scheduleExpiry(key: string, entry: PoolEntry): void {
    if (entry.expiry) clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => this.evict(key), this.options.idleMs);
    entry.expiry.unref();
  }

  private evict(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (entry.expiry) clearTimeout(entry.expiry);
    this.entries.delete(key);
    for (const worker of entry.workers.splice(0)) worker.kill();
  }
}
