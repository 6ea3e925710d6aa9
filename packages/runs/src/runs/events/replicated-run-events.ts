import type { JsonObject } from "../../persistence/agent-records.js";
import type { KeptRun, RunEvent, RunEvents, RunEventStore } from "../run-event-store.js";
import { BatchWriter } from "./batch-writer.js";
import { END_EVENT, type EventChannel } from "./event-channel.js";
import { LocalRunLog } from "./local-run-log.js";
import { RunTail } from "./run-tail.js";

export interface ReplicatedRunEventsOptions {
  /** How often the channel's sweep runs, when it has one (Postgres; Redis expires keys itself). @default 60 s */
  readonly sweepEveryMs?: number;
  /** Hears what failed in the background (a write given up on, a read, a sweep); the store carries on. */
  readonly onError?: (error: unknown, what: string) => void;
}

interface LocalRun extends KeptRun {
  readonly log: LocalRunLog;
}

/** Rows read from the channel at once for a followed run. */
const readLimit = 1000;
/** Wait before reading a followed run again after a failed read. */
const readRetryMs = 250;

/**
 * Run events shared by replicas over an EventChannel (Postgres or Redis): the RunEventStore of an
 * agent server that is one of several (README.md, "Events across replicas").
 *
 * - A run executing here has its log in memory (`open`, `get`): its streams here read from memory,
 *   and each event is also written to the channel in batches, in order, without making the run
 *   wait. `finish` writes the end row (with join's result); once it is written the memory copy is
 *   dropped and the channel is the one place the events are kept, for the retention time.
 * - A run executing elsewhere is found with `lookup`. Its followers here share one RunTail, read
 *   from the channel when the channel announces new rows (one listening connection per store).
 */
export class ReplicatedRunEvents implements RunEventStore {
  readonly #channel: EventChannel;
  readonly #onError: (error: unknown, what: string) => void;
  readonly #writer: BatchWriter;
  readonly #local = new Map<string, LocalRun>();
  readonly #tails = new Map<string, RunTail>();
  /** Runs taken from this replica: their rows still queued are not written. */
  readonly #abandoned = new Set<string>();
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(channel: EventChannel, options: ReplicatedRunEventsOptions) {
    this.#channel = channel;
    this.#onError = options.onError ?? (() => undefined);
    this.#writer = new BatchWriter(
      (rows, retry) => {
        const kept = this.#abandoned.size > 0 ? rows.filter((row) => !this.#abandoned.has(row.runId)) : rows;
        return kept.length > 0 ? channel.write(kept, retry) : Promise.resolve();
      },
      { onError: (error) => this.#onError(error, "writing run events") },
    );
  }

  /** A store over `channel`, listening to it; sweeps it periodically when the channel sweeps. */
  static async open(channel: EventChannel, options: ReplicatedRunEventsOptions = {}): Promise<ReplicatedRunEvents> {
    const store = new ReplicatedRunEvents(channel, options);
    try {
      await channel.listen({ announced: (runId, seq) => store.#announced(runId, seq), reset: () => store.#readAll() });
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw error;
    }
    if (channel.sweep) {
      store.#sweeper = setInterval(() => void store.sweep().catch((error: unknown) => store.#onError(error, "sweeping run events")), options.sweepEveryMs ?? 60_000);
      store.#sweeper.unref();
    }
    return store;
  }

  /** A new log for a run executing here. */
  open(runId: string): KeptRun {
    const kept: LocalRun = {
      log: new LocalRunLog(runId, {
        write: (row) => this.#writer.enqueue(row),
        onClose: (nextSeq) => this.#ended(runId, kept, nextSeq),
        flushed: () => this.#writer.flushed(),
      }),
    };
    this.#local.set(runId, kept);
    return kept;
  }

  /** The log of a run executing here (and, after its end, until its end row is written). */
  get(runId: string): KeptRun | undefined {
    return this.#local.get(runId);
  }

  /** The events of a run executing here or on any replica; undefined when the channel has none of it. */
  async lookup(runId: string): Promise<KeptRun | undefined> {
    const local = this.#local.get(runId);
    if (local) return local;
    if (!this.#tails.has(runId) && (await this.#channel.lastSeq(runId)) === undefined) return this.#local.get(runId);
    return this.#followed(runId);
  }

  /**
   * The run ended: its end row goes to the channel (with join's result, `result` of its KeptRun).
   * For a run this replica does not hold (its replica is gone), an end row after its last row, so
   * its followers everywhere end.
   */
  finish(runId: string): void {
    const local = this.#local.get(runId);
    if (local) {
      local.log.close();
      return;
    }
    if (this.#closed) return;
    this.#channel.lastSeq(runId).then(
      (last) => {
        if (last !== undefined) this.#writer.enqueue({ runId, seq: last + 1, event: END_EVENT, data: "null" });
      },
      (error: unknown) => this.#onError(error, "ending another replica's run"),
    );
  }

  /**
   * The run was taken from this replica: its followers here end and none of its rows still queued,
   * nor an end row, reach the channel. Writing them would race the replica that took the run over,
   * whose rows have the same positions.
   */
  abandon(runId: string): void {
    const local = this.#local.get(runId);
    if (!local) return;
    this.#abandoned.add(runId);
    this.#local.delete(runId);
    local.log.silence();
    // Once the writer is past every row queued so far, none of this run's is left to skip.
    void this.#writer.flushed().then(() => this.#abandoned.delete(runId));
  }

  /** Runs whose events are in this process's memory (executing here, or ended and being written), and their bytes. */
  get size(): { runs: number; finished: number; bytes: number } {
    let finished = 0;
    let bytes = 0;
    for (const kept of this.#local.values()) {
      if (kept.log.closed) finished++;
      bytes += kept.log.bytes;
    }
    return { runs: this.#local.size, finished, bytes };
  }

  /** Ends every follower in this process and forgets the logs in memory (server shutdown); the channel keeps its rows. */
  clear(): void {
    for (const kept of this.#local.values()) kept.log.silence();
    this.#local.clear();
    for (const tail of this.#tails.values()) tail.end();
    this.#tails.clear();
  }

  /** Writes what is pending, ends every follower and closes the channel's connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    await this.#writer.flushed();
    this.clear();
    await this.#channel.close();
  }

  /** Drops the events of runs that ended longer than the retention ago (runs periodically; callable at will). */
  async sweep(): Promise<number> {
    return (await this.#channel.sweep?.()) ?? 0;
  }

  #ended(runId: string, kept: LocalRun, nextSeq: number): void {
    this.#writer.enqueue({ runId, seq: nextSeq, event: END_EVENT, data: JSON.stringify(kept.result ?? null) });
    // Once written, followers anywhere (this replica's too) read the events from the channel.
    void this.#writer.flushed().then(() => {
      if (this.#local.get(runId) === kept) this.#local.delete(runId);
    });
  }

  /** A KeptRun over the channel: each `follow` reads through the run's shared tail. */
  #followed(runId: string): KeptRun {
    let result: JsonObject | undefined;
    const follow = (afterId?: string, signal?: AbortSignal): AsyncIterable<RunEvent> => this.#follow(runId, afterId, signal, (tail) => (result = tail.result));
    const log: RunEvents = { push: () => undefined, close: () => undefined, follow };
    return {
      log,
      get result() {
        return result;
      },
    };
  }

  async *#follow(runId: string, afterId: string | undefined, signal: AbortSignal | undefined, onEnd: (tail: RunTail) => void): AsyncGenerator<RunEvent> {
    if (this.#closed) return;
    let tail = this.#tails.get(runId);
    if (!tail) {
      tail = new RunTail(runId);
      this.#tails.set(runId, tail);
    }
    tail.followers++;
    if (tail.lastSeq < 0 || tail.announcedSeq > tail.lastSeq) this.#read(tail);
    try {
      yield* tail.follow(afterId, signal);
    } finally {
      tail.followers--;
      if (tail.ended) onEnd(tail);
      if (tail.followers === 0 && this.#tails.get(runId) === tail) this.#tails.delete(runId);
    }
  }

  #announced(runId: string, seq: number): void {
    const tail = this.#tails.get(runId);
    if (!tail) return;
    tail.announcedSeq = Math.max(tail.announcedSeq, seq);
    if (seq > tail.lastSeq) this.#read(tail);
  }

  #readAll(): void {
    for (const tail of this.#tails.values()) this.#read(tail);
  }

  /** Reads the tail's new rows, again while more were announced meanwhile; one read at a time per tail. */
  #read(tail: RunTail): void {
    if (tail.reading) {
      tail.dirty = true;
      return;
    }
    tail.reading = true;
    void (async () => {
      try {
        do {
          tail.dirty = false;
          // Rows are readable once announced (announcements follow the commit), so a read that
          // started after an announcement and finds nothing means the run's events were dropped.
          const announced = tail.announcedSeq;
          const rows = await this.#channel.read(tail.runId, tail.lastSeq, readLimit);
          tail.add(rows);
          if (rows.length === readLimit) tail.dirty = true;
          else if (rows.length === 0 && announced > tail.lastSeq) tail.end();
        } while (tail.dirty && !tail.ended && tail.followers > 0 && !this.#closed);
      } catch (error) {
        this.#onError(error, `reading the events of run ${tail.runId}`);
        setTimeout(() => {
          if (tail.followers > 0 && !tail.ended && !this.#closed) this.#read(tail);
        }, readRetryMs).unref();
      } finally {
        tail.reading = false;
      }
    })();
  }
}
