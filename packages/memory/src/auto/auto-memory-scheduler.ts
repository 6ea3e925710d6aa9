/** What ended runs of one thread left for its next pass. */
export interface AutoMemoryBatch {
  /** The thread's owner: the only memory the pass may touch. */
  readonly ownerId: string;
  /** Runs that ended since the last pass (the transcript reaches back this many user turns when the thread was not read before). */
  readonly runs: number;
  /** One of them had memory off (the run's config, its assistant): the pass skips these messages. */
  readonly memoryOff: boolean;
}

export interface AutoMemorySchedulerOptions {
  /** How long a thread stays quiet after a run's end before its pass (config memory.auto_debounce_ms). */
  readonly debounceMs: number;
  /** The pass: reads the thread, checks the owner's switches, calls the memory model. Aborted by close(). */
  readonly pass: (threadId: string, batch: AutoMemoryBatch, signal: AbortSignal) => Promise<void>;
  /** A pass that threw (logged by the caller; the next run's end tries again). */
  readonly onError: (error: unknown, threadId: string) => void;
  /** Threads waiting at once at most; past it the oldest waiting one is dropped. @default 10000 */
  readonly maxThreads?: number;
}

interface ThreadState {
  batch: AutoMemoryBatch | undefined;
  timer: NodeJS.Timeout | undefined;
  running: Promise<void> | undefined;
}

/**
 * When automatic memory runs: a run's end (re)starts its thread's quiet period, so a busy thread
 * gets one pass after its last run rather than one per run; a thread has at most one pass at a
 * time (a run that ends during it waits for the next). `runEnded` only sets a timer: it never
 * waits, so the run, its stream and its join are never held up by memory. Timers are unref'd
 * (they never keep a process alive); close() drops what waits and aborts what runs.
 */
export class AutoMemoryScheduler {
  private readonly threads = new Map<string, ThreadState>();
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(private readonly options: AutoMemorySchedulerOptions) {}

  /** A run of `threadId` ended: count it into the thread's next pass and restart its quiet period. */
  runEnded(threadId: string, run: { readonly ownerId: string; readonly memoryOff: boolean }): void {
    if (this.controller.signal.aborted) return;
    let state = this.threads.get(threadId);
    if (!state) {
      this.dropOldestIfFull();
      state = { batch: undefined, timer: undefined, running: undefined };
      this.threads.set(threadId, state);
    }
    const previous = state.batch;
    state.batch = { ownerId: run.ownerId, runs: (previous?.runs ?? 0) + 1, memoryOff: (previous?.memoryOff ?? false) || run.memoryOff };
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    if (!state.running) this.arm(threadId, state);
  }

  /** Resolves once no pass waits or runs (tests; a graceful stop). */
  idle(): Promise<void> {
    if (this.threads.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Whether a pass for `threadId` waits or runs. */
  pending(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  /** Drops every waiting pass and aborts the running ones (their memory writes are atomic: a file is whole or unchanged). */
  async close(): Promise<void> {
    this.controller.abort(new Error("automatic memory stopped"));
    const running: Promise<void>[] = [];
    for (const state of this.threads.values()) {
      if (state.timer) clearTimeout(state.timer);
      if (state.running) running.push(state.running);
    }
    await Promise.allSettled(running);
    this.threads.clear();
    this.settle();
  }

  private arm(threadId: string, state: ThreadState): void {
    state.timer = setTimeout(() => this.fire(threadId, state), this.options.debounceMs);
    state.timer.unref();
  }

  private fire(threadId: string, state: ThreadState): void {
    state.timer = undefined;
    const batch = state.batch;
    state.batch = undefined;
    if (!batch || this.controller.signal.aborted) return this.forget(threadId, state);
    state.running = (async () => {
      try {
        await this.options.pass(threadId, batch, this.controller.signal);
      } catch (error) {
        if (!this.controller.signal.aborted) this.options.onError(error, threadId);
      }
    })().finally(() => {
      state.running = undefined;
      // A run that ended meanwhile gets its own quiet period now.
      if (state.batch && !this.controller.signal.aborted) this.arm(threadId, state);
      else this.forget(threadId, state);
    });
  }

  private forget(threadId: string, state: ThreadState): void {
    if (this.threads.get(threadId) === state && !state.timer && !state.running && !state.batch) this.threads.delete(threadId);
    this.settle();
  }

  private dropOldestIfFull(): void {
    const max = this.options.maxThreads ?? 10_000;
    if (this.threads.size < max) return;
    for (const [threadId, state] of this.threads) {
      if (state.running) continue;
      if (state.timer) clearTimeout(state.timer);
      this.threads.delete(threadId);
      return;
    }
  }

  private settle(): void {
    if (this.threads.size > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
