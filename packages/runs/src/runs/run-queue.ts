import { ThinktankError } from "@thinktank/core";
import type { MultitaskStrategy } from "../persistence/agent-records.js";

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

/**
 * "Which run goes next on each thread": runs of one thread execute one at a time, in the order
 * they were admitted; runs of different threads run side by side. The run manager admits a run
 * when it creates it, schedules its work, and releases it when the work ended. InMemoryRunQueue
 * holds this in one process; a database-backed queue (runs claimed with SELECT ... FOR UPDATE
 * SKIP LOCKED, a heartbeat per running run) can implement the same interface for replicas.
 */
export interface RunQueue {
  /**
   * Admits a run under its strategy (admitUnder), atomically with other admissions on the thread:
   * once it resolves the run counts as in flight, so two requests at once cannot both find the
   * thread free. Throws THREAD_BUSY for reject on a busy thread.
   */
  admit(threadId: string, runId: string, strategy: MultitaskStrategy): Promise<Admission>;
  /** Starts `work` once every run scheduled before it on the thread has ended. `work` never throws. */
  schedule(threadId: string, work: () => Promise<void>): void;
  /** The run ended, or its admission is withdrawn (its record could not be written): no longer in flight. */
  release(threadId: string, runId: string): void;
  /** The thread's runs that are pending or running, oldest first. */
  inFlight(threadId: string): string[];
  /** Whether the run is pending or running. */
  has(runId: string): boolean;
  /** Resolves once every run scheduled on the thread so far has ended. */
  settled(threadId: string): Promise<void>;
  /** Resolves once every run scheduled so far has ended. */
  settledAll(): Promise<void>;
}

/** RunQueue in this process: per thread, the admitted run ids and a promise chain of their work. */
export class InMemoryRunQueue implements RunQueue {
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
