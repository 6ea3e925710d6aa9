/** One server-sent event of a run: `id` is its position, so a client can resume after it. */
export interface RunEvent {
  readonly id: string;
  readonly event: string;
  /** Plain JSON (already converted with toPlainJson). */
  readonly data: unknown;
}

/**
 * The events of one run, kept in memory so several clients can follow the same run and a client
 * that lost its connection can resume with Last-Event-ID (or join after the run ended, while the
 * log is retained).
 */
export class RunEventLog {
  readonly #events: RunEvent[] = [];
  readonly #waiters = new Set<() => void>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  push(event: string, data: unknown): void {
    if (this.#closed) return;
    this.#events.push({ id: String(this.#events.length), event, data });
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /**
   * Yields the events after `afterId` (all when undefined), then new ones as they come, until the
   * log closes or `signal` aborts.
   */
  async *follow(afterId?: string, signal?: AbortSignal): AsyncGenerator<RunEvent> {
    let next = afterId === undefined || !/^\d+$/.test(afterId) ? 0 : Number(afterId) + 1;
    while (!signal?.aborted) {
      while (next < this.#events.length) yield this.#events[next++] as RunEvent;
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          signal?.removeEventListener("abort", wake);
          resolve();
        };
        this.#waiters.add(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
