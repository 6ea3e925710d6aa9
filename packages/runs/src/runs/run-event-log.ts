import type { RunEvent, RunEvents } from "./run-event-store.js";
import { nextWake } from "./next-wake.js";

/**
 * The events of one run, kept in memory so several clients can follow the same run and a client
 * that lost its connection can resume with Last-Event-ID (or join after the run ended, while the
 * log is kept: see KeptRunEvents). Events are kept as their SSE frames: serialized once, however
 * many clients read them, and counted in bytes as sent.
 */
export class RunEventLog implements RunEvents {
  readonly #events: RunEvent[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #onGrow: ((bytes: number) => void) | undefined;
  #closed = false;
  #bytes = 0;

  /** `onGrow` hears the bytes of each event pushed (the kept-events bounds). */
  constructor(options: { onGrow?: (bytes: number) => void } = {}) {
    this.#onGrow = options.onGrow;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes of the kept frames (UTF-8). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends an event whose data is `json` (JSON text, one line). Ignored once the log is closed. */
  push(event: string, json: string): void {
    if (this.#closed) return;
    const id = String(this.#events.length);
    const frame = `id: ${id}\nevent: ${event}\ndata: ${json}\n\n`;
    const bytes = Buffer.byteLength(frame);
    this.#events.push({ id, event, frame });
    this.#bytes += bytes;
    this.#onGrow?.(bytes);
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
      await nextWake(this.#waiters, signal);
    }
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
