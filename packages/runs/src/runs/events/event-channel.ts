/**
 * One event of a run as replicas share it: `seq` is its position in the run (0, 1, 2, ...) and its
 * SSE id, so Last-Event-ID means the same on every replica. `data` is the event's JSON text.
 */
export interface EventRow {
  readonly runId: string;
  readonly seq: number;
  readonly event: string;
  readonly data: string;
}

/**
 * The row that ends a run: followers on every replica stop at it, and its `data` is what join
 * answers (the run's result, or `null`). No stream event has this name; it is never sent to clients.
 */
export const END_EVENT = "thinktank:end";

/** What a replica hears from the others: a run has rows up to `seq`; or announcements may have been missed. */
export interface ChannelListener {
  announced(runId: string, seq: number): void;
  /** The listening connection was lost and is back: every followed run is read again. */
  reset(): void;
}

/**
 * Where replicas share run events (Postgres: a table and LISTEN/NOTIFY; Redis: a stream per run and
 * pub/sub). ReplicatedRunEvents does the rest (in-process logs, batching, followers) over it.
 */
export interface EventChannel {
  /**
   * Writes rows (each run's in `seq` order, after what was written before) in one round trip, then
   * announces each run's last `seq` to every listener. `retry`: the rows may already be there from
   * an attempt whose answer was lost; they are not written twice.
   */
  write(rows: readonly EventRow[], retry: boolean): Promise<void>;
  /** A run's rows after `afterSeq` (-1: from the first), in order, at most `limit`. */
  read(runId: string, afterSeq: number, limit: number): Promise<EventRow[]>;
  /** The `seq` of the run's last row; undefined when the run has none (never had, or dropped). */
  lastSeq(runId: string): Promise<number | undefined>;
  /** Starts hearing announcements on one connection of its own (one per process, however many followers). */
  listen(listener: ChannelListener): Promise<void>;
  /** Drops the events of runs ended longer than the retention ago (where the backend does not expire them itself). */
  sweep?(): Promise<number>;
  close(): Promise<void>;
}
