import { RunEventLog } from "./run-event-log.js";
import type { KeptRun, RunEventStore } from "./run-event-store.js";

export interface KeptRunEventsOptions {
  /** How long a finished run's events stay. */
  readonly retentionMs: number;
  /** Finished runs whose events are kept at most. */
  readonly maxRuns: number;
  /** Bytes of kept events at most (running runs' included; only finished runs are dropped). */
  readonly maxBytes: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** A kept run whose log is in memory here (its bytes count towards the bounds). */
interface LocalRun extends KeptRun {
  readonly log: RunEventLog;
}

/**
 * The event logs of the runs of this process, bounded: a finished run's log stays for the
 * retention time, and the oldest finished runs are dropped first when there are more finished runs
 * than `maxRuns` or more bytes than `maxBytes`. Running runs are never dropped (their streams need
 * them), so running runs alone may exceed `maxBytes` until they finish.
 */
export class KeptRunEvents implements RunEventStore {
  readonly #options: KeptRunEventsOptions;
  readonly #now: () => number;
  readonly #runs = new Map<string, LocalRun>();
  /** Finished runs in the order they finished (a Map keeps insertion order): run id → when it expires. */
  readonly #finished = new Map<string, number>();
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: KeptRunEventsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** A new log for a run (its events count towards the bounds as they come). */
  open(runId: string): KeptRun {
    const kept: LocalRun = {
      log: new RunEventLog({
        onGrow: (bytes) => {
          this.#bytes += bytes;
          if (this.#bytes > this.#options.maxBytes) this.#evict();
        },
      }),
    };
    this.#runs.set(runId, kept);
    return kept;
  }

  get(runId: string): KeptRun | undefined {
    return this.#runs.get(runId);
  }

  /** Closes the run's log; from now on its events may be dropped (retention time, bounds). */
  finish(runId: string): void {
    const kept = this.#runs.get(runId);
    if (!kept || this.#finished.has(runId)) return;
    kept.log.close();
    this.#finished.set(runId, this.#now() + this.#options.retentionMs);
    this.#evict();
    this.#schedule();
  }

  /** Runs with kept events, finished ones among them, and their bytes. */
  get size(): { runs: number; finished: number; bytes: number } {
    return { runs: this.#runs.size, finished: this.#finished.size, bytes: this.#bytes };
  }

  /** Drops every log (server shutdown). */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const kept of this.#runs.values()) kept.log.close();
    this.#runs.clear();
    this.#finished.clear();
    this.#bytes = 0;
  }

  #evict(): void {
    const { maxRuns, maxBytes } = this.#options;
    const now = this.#now();
    for (const [runId, expiresAt] of this.#finished) {
      if (this.#finished.size <= maxRuns && this.#bytes <= maxBytes && expiresAt > now) break;
      this.#drop(runId);
    }
  }

  #drop(runId: string): void {
    const kept = this.#runs.get(runId);
    this.#runs.delete(runId);
    this.#finished.delete(runId);
    if (kept) this.#bytes -= kept.log.bytes;
  }

  /** One timer, for the oldest finished run (every run is kept equally long, so it expires first). */
  #schedule(): void {
    if (this.#timer !== undefined) return;
    const first = this.#finished.values().next();
    if (first.done) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#evict();
        this.#schedule();
      },
      Math.max(0, first.value - this.#now()) + 1,
    );
    this.#timer.unref();
  }
}
