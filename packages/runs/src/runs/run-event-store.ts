import type { JsonObject } from "../persistence/agent-records.js";

/** One server-sent event of a run: `id` is its position, so a client can resume after it. */
export interface RunEvent {
  readonly id: string;
  readonly event: string;
  /** The whole SSE frame (`id`, `event` and `data` lines), made once when the event was pushed. */
  readonly frame: string;
}

/**
 * One run's events as the executor writes them and streams and join read them. In memory here
 * (RunEventLog); across replicas a channel over the database or Redis can stand behind it.
 */
export interface RunEvents {
  /** Appends an event whose data is `json` (JSON text, one line). Ignored once closed. */
  push(event: string, json: string): void;
  close(): void;
  /** The events after `afterId` (all when undefined), then new ones as they come, until closed or `signal` aborts. */
  follow(afterId?: string, signal?: AbortSignal): AsyncIterable<RunEvent>;
  /**
   * Resolves once every event pushed so far can be read on other replicas (a shared store writes
   * them in batches, after `push` returned). Absent on logs that live in this process only.
   */
  flushed?(): Promise<void>;
}

/** What a run leaves for streams and join: its events, and once finished what join answers. */
export interface KeptRun {
  readonly log: RunEvents;
  result?: JsonObject;
}

/**
 * Where the run manager keeps each run's events from creation until some time after the end:
 * the seam for "events of a run on any replica" (KeptRunEvents keeps them in this process).
 */
export interface RunEventStore {
  /** A new log for a run. */
  open(runId: string): KeptRun;
  /** The run's log while kept (pending, running, or finished and not yet dropped). */
  get(runId: string): KeptRun | undefined;
  /** The run ended: closes its log, which stays readable for a while. */
  finish(runId: string): void;
  /**
   * The run was taken from this process (a shared queue found its heartbeat stale): its followers
   * here end, and nothing more of it is written, not even an end; the replica that took it writes
   * the rest. Absent on in-process stores, where no run is taken and `finish` does.
   */
  abandon?(runId: string): void;
  /** Runs with kept events, finished ones among them, and their bytes. */
  readonly size: { runs: number; finished: number; bytes: number };
  /** Drops every log (server shutdown). */
  clear(): void;
  /**
   * The run's events wherever it executes: on a store shared by replicas (events/), a run of another
   * replica too. Undefined when none are kept. Absent on in-process stores, where `get` says it all.
   */
  lookup?(runId: string): Promise<KeptRun | undefined>;
  /** Writes what is still pending and releases what the store holds (connections, timers). */
  close?(): Promise<void>;
}
