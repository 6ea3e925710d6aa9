import { ThinktankError } from "@thinktank/core";
import type { MultitaskStrategy, RunRecord, RunStatus } from "../persistence/agent-records.js";
import type { RunRequest } from "./run-request.js";

/** What `multitask_strategy` decided for a new run while other runs of its thread were pending or running. */
export interface Admission {
  /** The thread's runs that were pending or running before this one, oldest first. */
  readonly before: readonly string[];
  /** How the new run cancels `before`: interrupt, or rollback (cancel and delete); undefined: it waits behind them (enqueue, or nothing before it). */
  readonly cancel?: "interrupt" | "rollback";
}

/**
 * The multitask rule, one place: reject refuses a run while its thread has one pending or running
 * (409 THREAD_BUSY); enqueue waits; interrupt and rollback cancel the runs before it.
 */
export function admitUnder(strategy: MultitaskStrategy, threadId: string, before: readonly string[]): Admission {
  if (before.length === 0) return { before };
  if (strategy === "reject") {
    throw new ThinktankError("THREAD_BUSY", `thread ${threadId} is running ${before[0]}: wait for it, or pass multitask_strategy enqueue, interrupt or rollback`);
  }
  return strategy === "interrupt" || strategy === "rollback" ? { before, cancel: strategy } : { before };
}

/** How a run enters its thread's queue. */
export interface RunTicket {
  readonly strategy: MultitaskStrategy;
  /** The request as given (kept with the run: a replica that takes the run over reads it from the record). */
  readonly request: RunRequest;
  /** A stateless run's temporary thread, deleted after the thread's last run. */
  readonly temporary: boolean;
}

/** What admission decided, and the run as recorded (a shared queue may move created_at on, so a thread's runs are in creation order). */
export interface Admitted extends Admission {
  readonly run: RunRecord;
}

/** A run whose turn came, handed to the run manager of the replica that executes it. */
export interface RunTurn {
  readonly run: RunRecord;
  readonly request: RunRequest;
  readonly temporary: boolean;
  /** Seconds still to wait before executing: after_seconds where the queue has not waited for it. */
  readonly delaySeconds: number;
  /** Cancelled before its turn (a cancel recorded with the run, perhaps from another replica). */
  readonly cancel?: "interrupt" | "rollback";
}

/** The run manager's side of a queue: set once with RunQueue.start. */
export interface RunQueueHandlers {
  /** Executes the run in its turn and records its end (RunQueue.end), then RunQueue.release; never throws. */
  run(turn: RunTurn): Promise<void>;
  /** A cancel of a run this process holds came from elsewhere (another replica, or the run's record). */
  cancel(runId: string, action: "interrupt" | "rollback"): void;
  /** The run was taken from this process (its heartbeat went stale and another replica ended or took it): stop, record nothing. */
  lost(runId: string): void;
  /**
   * A run of the thread is about to be marked `error` because the replica executing it stopped
   * (`error` says so): bring the thread's record up to date from its checkpoint, as the run's own end would have.
   */
  abandoned(threadId: string, error: { error: string; message: string }): Promise<void>;
  /** A run this process does not hold was ended by the queue (marked `error` after its replica stopped): end its events. */
  endedElsewhere(runId: string): void;
}

/** How a queue shared by replicas keeps runs alive (config `agent.runs`). */
export interface SharedRunQueueOptions {
  /** How often this replica says it still holds its runs (`agent.runs.heartbeat_seconds`). */
  readonly heartbeatSeconds: number;
  /** A running run whose heartbeat is older than this is marked `error` by any replica (`agent.runs.stale_after_seconds`). */
  readonly staleAfterSeconds: number;
  /** The clock of records' ISO timestamps (heartbeats use the database's clock). */
  readonly clock: () => Date;
  readonly log?: { info(fields: object, message: string): void; error(fields: object, message: string): void };
  /** This replica's name in the records (`owner`). @default host, pid and a random suffix */
  readonly replicaId?: string;
}

/**
 * "Which run goes next on each thread", the seam the run manager schedules through: runs of one
 * thread execute one at a time, in the order they were admitted; runs of different threads run side
 * by side. The manager admits a run when it creates it (the queue records it pending); the queue
 * hands it to the manager's `run` handler in its turn, on this process or, for a queue shared by
 * replicas, on the replica that holds it; the manager records the end through `end` and lets go with
 * `release`. LocalRunQueue is the one-process queue (InMemoryRunQueue's promise chains, records in
 * the MetadataStore); PostgresRunQueue shares runs between replicas on one Postgres database.
 */
export interface RunQueue {
  /** Once, by the run manager, before any admission. */
  start(handlers: RunQueueHandlers): void;
  /**
   * Admits a run under its strategy (admitUnder) and records it `pending` with its thread `busy`,
   * atomically with other admissions on the thread, so two requests at once cannot both find the
   * thread free. Throws THREAD_BUSY for reject on a busy thread (nothing recorded). The runs in
   * `before` are marked cancelled the strategy's way wherever they execute.
   */
  admit(run: RunRecord, ticket: RunTicket): Promise<Admitted>;
  /** Asks whoever holds the run to cancel it (recorded with the run where the queue is shared); false when it is not pending or running. */
  cancel(threadId: string, runId: string, action: "interrupt" | "rollback"): Promise<boolean>;
  /** Records how the run ended (`rollback`: deletes it) and frees its thread's turn. `now` is the manager's clock. */
  end(run: RunRecord, status: RunStatus | "rollback", error: { error: string; message: string } | undefined, now: string): Promise<void>;
  /** The run's work on this process ended (after `end`, or without it when bookkeeping failed): no longer held here. */
  release(threadId: string, runId: string): void;
  /** The thread's runs that are pending or running (on any replica), oldest first. */
  inFlight(threadId: string): Promise<string[]>;
  /** The thread's runs this process holds (admitted here or taken over, not yet released), oldest first. */
  held(threadId: string): string[];
  /** Resolves once `runIds` have ended (every run admitted on the thread so far, where the queue keeps them in this process). */
  settled(threadId: string, runIds: readonly string[]): Promise<void>;
  /** Resolves once the run is no longer pending or running (or `signal` aborts); how it failed when it ended in error and the queue kept that. */
  ended(runId: string, signal?: AbortSignal): Promise<{ error?: { error: string; message: string } } | undefined>;
  /** Takes no more work; resolves once every run this process holds has ended (server shutdown, after the manager cancelled them). */
  settledAll(): Promise<void>;
}

/**
 * Per-thread order in this process: per thread, the admitted run ids and a promise chain of their
 * work (LocalRunQueue is the RunQueue over it).
 */
export class InMemoryRunQueue {
  readonly #queued = new Map<string, Set<string>>();
  /** Per thread, the end of the last work scheduled. */
  readonly #tails = new Map<string, Promise<void>>();

  async admit(threadId: string, runId: string, strategy: MultitaskStrategy): Promise<Admission> {
    const admission = admitUnder(strategy, threadId, this.inFlight(threadId));
    const queued = this.#queued.get(threadId) ?? new Set<string>();
    queued.add(runId);
    this.#queued.set(threadId, queued);
    return admission;
  }

  schedule(threadId: string, work: () => Promise<void>): void {
    const previous = this.#tails.get(threadId) ?? Promise.resolve();
    const tail: Promise<void> = previous.then(work).finally(() => {
      if (this.#tails.get(threadId) === tail) this.#tails.delete(threadId);
    });
    this.#tails.set(threadId, tail);
  }

  release(threadId: string, runId: string): void {
    const queued = this.#queued.get(threadId);
    queued?.delete(runId);
    if (queued?.size === 0) this.#queued.delete(threadId);
  }

  inFlight(threadId: string): string[] {
    return [...(this.#queued.get(threadId) ?? [])];
  }

  has(runId: string): boolean {
    return [...this.#queued.values()].some((ids) => ids.has(runId));
  }

  async settled(threadId: string): Promise<void> {
    await this.#tails.get(threadId);
  }

  async settledAll(): Promise<void> {
    await Promise.allSettled([...this.#tails.values()]);
  }
}
