import { RunEventLog } from "../run-event-log.js";
import type { RunEvent, RunEvents } from "../run-event-store.js";
import type { EventRow } from "./event-channel.js";

/**
 * The log of a run executing in this process on a shared store: kept in memory (this replica's
 * streams read it from there, without a round trip) and each event handed to the writer as a row
 * whose `seq` is the event's id. `close` hands the end row over (`onClose`).
 */
export class LocalRunLog implements RunEvents {
  readonly #runId: string;
  readonly #log = new RunEventLog();
  readonly #write: (row: EventRow) => void;
  readonly #onClose: (nextSeq: number) => void;
  readonly #flushed: () => Promise<void>;
  #nextSeq = 0;

  constructor(runId: string, hooks: { write: (row: EventRow) => void; onClose: (nextSeq: number) => void; flushed: () => Promise<void> }) {
    this.#runId = runId;
    this.#write = hooks.write;
    this.#onClose = hooks.onClose;
    this.#flushed = hooks.flushed;
  }

  get closed(): boolean {
    return this.#log.closed;
  }

  get bytes(): number {
    return this.#log.bytes;
  }

  push(event: string, json: string): void {
    if (this.#log.closed) return;
    this.#log.push(event, json);
    this.#write({ runId: this.#runId, seq: this.#nextSeq++, event, data: json });
  }

  /** The run ended: local followers end, and the end row goes to the other replicas. */
  close(): void {
    if (this.#log.closed) return;
    this.#log.close();
    this.#onClose(this.#nextSeq);
  }

  /** Ends local followers without an end row (the store is cleared at shutdown). */
  silence(): void {
    this.#log.close();
  }

  follow(afterId?: string, signal?: AbortSignal): AsyncIterable<RunEvent> {
    return this.#log.follow(afterId, signal);
  }

  flushed(): Promise<void> {
    return this.#flushed();
  }
}
