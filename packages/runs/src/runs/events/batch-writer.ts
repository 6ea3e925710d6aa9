import type { EventRow } from "./event-channel.js";

export interface BatchWriterOptions {
  /** Rows in one write at most. @default 500 */
  readonly maxRows?: number;
  /** Bytes of `data` in one write at most (a single larger row goes alone). @default 1 MiB */
  readonly maxBytes?: number;
  /** Waits before each retry of a failed write; after the last, the rows are given up. @default [50, 200, 1000, 3000] */
  readonly retryDelaysMs?: readonly number[];
  /** Hears a write given up on (its rows are lost to other replicas; this replica's followers still have them). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Writes rows in the order they were pushed, one write at a time, each write taking every row that
 * arrived meanwhile: a run never waits on a round trip per event, and a busy server sends few
 * large writes. Rows pushed in the same tick go out together.
 */
export class BatchWriter {
  readonly #write: (rows: readonly EventRow[], retry: boolean) => Promise<void>;
  readonly #maxRows: number;
  readonly #maxBytes: number;
  readonly #retryDelaysMs: readonly number[];
  readonly #onError: ((error: unknown) => void) | undefined;
  #queue: EventRow[] = [];
  #enqueued = 0;
  #done = 0;
  #draining = false;
  readonly #waiters: { upTo: number; resolve: () => void }[] = [];

  constructor(write: (rows: readonly EventRow[], retry: boolean) => Promise<void>, options: BatchWriterOptions = {}) {
    this.#write = write;
    this.#maxRows = options.maxRows ?? 500;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024;
    this.#retryDelaysMs = options.retryDelaysMs ?? [50, 200, 1000, 3000];
    this.#onError = options.onError;
  }

  enqueue(row: EventRow): void {
    this.#queue.push(row);
    this.#enqueued++;
    if (this.#draining) return;
    this.#draining = true;
    queueMicrotask(() => void this.#drain());
  }

  /** Resolves once every row enqueued so far was written (or given up on: see onError). */
  flushed(): Promise<void> {
    if (this.#done >= this.#enqueued) return Promise.resolve();
    const upTo = this.#enqueued;
    return new Promise((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#take();
        await this.#writeWithRetries(batch);
        this.#done += batch.length;
        while (this.#waiters.length > 0 && (this.#waiters[0] as { upTo: number }).upTo <= this.#done) this.#waiters.shift()?.resolve();
      }
    } finally {
      this.#draining = false;
    }
  }

  #take(): EventRow[] {
    let count = 0;
    let bytes = 0;
    for (const row of this.#queue) {
      bytes += row.data.length;
      if (count > 0 && (count >= this.#maxRows || bytes > this.#maxBytes)) break;
      count++;
    }
    return this.#queue.splice(0, count);
  }

  async #writeWithRetries(batch: readonly EventRow[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#write(batch, attempt > 0);
        return;
      } catch (error) {
        const wait = this.#retryDelaysMs[attempt];
        if (wait === undefined) {
          this.#onError?.(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}
