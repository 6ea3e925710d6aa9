import type { JsonObject } from "../../persistence/agent-records.js";
import type { RunEvent } from "../run-event-store.js";
import { END_EVENT, type EventRow } from "./event-channel.js";
import { nextWake } from "../next-wake.js";

/**
 * A run's events as read from the channel on a replica that follows it, shared by every follower of
 * the run in this process (one read per announcement, however many streams). It holds the run's
 * events from the first, so a follower that comes later, or resumes after a Last-Event-ID, reads
 * them from memory. It ends at the run's end row, or when the store ends it.
 */
export class RunTail {
  readonly runId: string;
  /** Followers reading it now; the store reads the channel for it while there are some. */
  followers = 0;
  /** The last `seq` read (-1: none yet). */
  lastSeq = -1;
  /** The highest `seq` announced for the run. */
  announcedSeq = -1;
  /** A read is in flight; `dirty`: another is wanted after it. */
  reading = false;
  dirty = false;
  #ended = false;
  #result: JsonObject | undefined;
  readonly #events: RunEvent[] = [];
  readonly #seqs: number[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(runId: string) {
    this.runId = runId;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** What the end row says join answers; undefined before the end, or when it said nothing. */
  get result(): JsonObject | undefined {
    return this.#result;
  }

  /** Takes rows read from the channel: those after `lastSeq`, in order, up to and with the end row. */
  add(rows: readonly EventRow[]): void {
    for (const row of rows) {
      if (this.#ended || row.seq <= this.lastSeq) continue;
      this.lastSeq = row.seq;
      if (row.event === END_EVENT) {
        this.#result = parseResult(row.data);
        this.#ended = true;
        continue;
      }
      this.#events.push({ id: String(row.seq), event: row.event, frame: `id: ${row.seq}\nevent: ${row.event}\ndata: ${row.data}\n\n` });
      this.#seqs.push(row.seq);
    }
    this.#wake();
  }

  /** Ends it without an end row (the run's events are gone, or the store closes): followers return. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** The events after `afterId` (all when undefined), then new ones as they are read, until the end or `signal` aborts. */
  async *follow(afterId?: string, signal?: AbortSignal): AsyncGenerator<RunEvent> {
    // By seq, not position: the events before `afterId` may not have been read yet.
    let after = afterId === undefined || !/^\d+$/.test(afterId) ? -1 : Number(afterId);
    while (!signal?.aborted) {
      for (let next = this.#firstAfter(after); next < this.#events.length; next++) {
        const event = this.#events[next] as RunEvent;
        after = this.#seqs[next] as number;
        yield event;
      }
      if (this.#ended) return;
      await nextWake(this.#waiters, signal);
    }
  }

  /** The position of the first event whose seq is above `seq` (binary search: seqs ascend). */
  #firstAfter(seq: number): number {
    let low = 0;
    let high = this.#seqs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#seqs[middle] as number) <= seq) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

function parseResult(data: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}
