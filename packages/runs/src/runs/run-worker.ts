import type { JsonObject, RunRecord, RunStatus, ThreadRecord } from "../persistence/agent-records.js";
import type { AgentStore } from "../persistence/agent-store.js";
import { serverAccess } from "../owners/access.js";
import type { ThreadService } from "../threads/thread-service.js";
import type { RunExecutor } from "./run-executor.js";
import type { RunFigures, RunSummary } from "./run-figures.js";
import type { KeptRun, RunEventStore } from "./run-event-store.js";
import type { RunQueue, RunTurn } from "./run-queue.js";
import type { RunRequest } from "./run-request.js";

export interface RunLog {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A scheduled run's cancellation: one controller for the run's whole life, so cancelling a queued or delayed run stops it before it starts. */
export interface ActiveRun {
  readonly controller: AbortController;
  /** What the run's log lines name. */
  readonly who: { reqId?: string; runId: string; threadId: string };
  readonly started: number;
  action?: "interrupt" | "rollback";
  /** Taken from this process (a shared queue found its heartbeat stale): it stops and records nothing. */
  lost?: boolean;
  /** Its turn came here (RunQueueHandlers.run). */
  working?: boolean;
  /** How the run ended, for its log line. */
  ended?: { status: RunStatus | "rollback"; error?: string };
  /** Its end is recorded (RunQueue.end returned): nothing may record another. */
  recorded?: boolean;
  /** When it started executing (performance.now()), and what the executor counted: the run's summary. */
  runningSince?: number;
  figures?: RunFigures;
}

/** What join and the thread record say when a run's end could not be recorded the ordinary way (the log has the cause). */
const runFailed = { error: "INTERNAL", message: "the run failed and its end was recorded without the thread's state (see the agent server's log)" };
const stateUnreadable = { error: "INTERNAL", message: "the run ended but the thread's state could not be read (see the agent server's log)" };

export interface RunWorkerOptions {
  readonly store: AgentStore;
  readonly threads: ThreadService;
  readonly execute: RunExecutor;
  readonly clock: () => Date;
  readonly log?: RunLog;
  readonly queue: RunQueue;
  readonly events: RunEventStore;
  /** The runs this process holds, shared with the RunManager (create adds them, cancels abort them). */
  readonly active: Map<string, ActiveRun>;
}

/**
 * The second half of a run's lifecycle in this process (README.md, "Run lifecycle"), from its turn
 * on: waits `after_seconds`, executes it (the RunExecutor), records how it ended (the thread from
 * its checkpoint first, then the run through the queue) and lets go of it. The RunManager admits
 * and cancels runs; this is the queue's `run` handler.
 */
export class RunWorker {
  readonly #options: RunWorkerOptions;

  constructor(options: RunWorkerOptions) {
    this.#options = options;
  }

  /** A run's turn (RunQueueHandlers.run): executes it, records its end, lets go of it. */
  async work(turn: RunTurn): Promise<void> {
    const { queue, events, active: held } = this.#options;
    const { run } = turn;
    const threadId = run.thread_id;
    let active = held.get(run.run_id);
    if (!active) {
      // Taken over from a replica that stopped, or admitted elsewhere.
      active = { controller: new AbortController(), who: { runId: run.run_id, threadId }, started: performance.now() };
      held.set(run.run_id, active);
    }
    active.working = true;
    const kept = openRunLog(events, run.run_id);
    if (turn.cancel) {
      active.action = turn.cancel;
      active.controller.abort();
    }
    const who = active.who;
    try {
      await delay(turn.delaySeconds, active.controller.signal);
      await this.#execute(run, turn.request, kept, active, turn.temporary);
    } catch (error) {
      this.#options.log?.error({ ...who, err: error }, "run bookkeeping failed");
      // Whatever threw (the executor, the state read, recording the end): the run still ends, as error, and its thread leaves busy.
      if (!active.lost && !active.recorded) {
        // Its stream says so, unless an error event went out already (the executor's for a failed run, or the unreadable state's).
        if (active.ended?.status !== "error") kept.log.push("error", JSON.stringify(runFailed));
        active.ended = { status: "error", error: runFailed.error };
        await this.#finish(run, kept, "error", runFailed, turn.temporary, active).catch((cause: unknown) => this.#options.log?.error({ ...who, err: cause }, "recording the run's failed end failed"));
      }
    } finally {
      const ended = { ...who, status: active.ended?.status ?? "error", ms: Math.round(performance.now() - active.started) };
      if (active.ended?.error) this.#options.log?.info({ ...ended, error: active.ended.error }, "run failed");
      else this.#options.log?.debug(ended, "run ended");
      queue.release(threadId, run.run_id);
      held.delete(run.run_id);
      if (active.lost) abandonOrFinish(events, run.run_id);
      else events.finish(run.run_id);
    }
  }

  async #execute(run: RunRecord, request: RunRequest, kept: KeptRun, active: ActiveRun, temporary: boolean): Promise<void> {
    const { store, clock } = this.#options;
    if (active.controller.signal.aborted) {
      active.ended = { status: active.action === "rollback" ? "rollback" : "interrupted" };
      await this.#finish(run, kept, active.ended.status, undefined, temporary, active);
      return;
    }
    await store.metadata.updateRun(run.run_id, { status: "running" }, clock().toISOString());
    const job = { run, request, startedAt: clock(), signal: active.controller.signal };
    active.runningSince = performance.now();
    const outcome = await this.#options.execute(job, (event, json) => kept.log.push(event, json));
    if (outcome.figures) active.figures = outcome.figures;
    if (active.lost) {
      // Another replica ended or took the run: its thread is theirs now, nothing is recorded from here.
      active.ended = { status: "error", error: "the run was taken from this agent server (its heartbeat went stale)" };
      return;
    }
    // Cancelled (interrupt or rollback: rollback deletes the run record, not its checkpoints): close the tool calls it left open.
    if (outcome.status === "interrupted") {
      await this.#options.threads.closeCancelledToolCalls(run.thread_id).catch((error: unknown) => this.#options.log?.error({ runId: run.run_id, err: error }, "closing cancelled tool calls failed"));
    }
    const status = active.action === "rollback" ? "rollback" : outcome.status;
    active.ended = { status, error: outcome.error?.error };
    await this.#finish(run, kept, status, outcome.error, temporary, active);
  }

  /**
   * Ends a run whose record says pending or running while no queue holds it (its end was never
   * recorded): as cancelled (`interrupted`, or deleted for rollback), its thread refreshed from its
   * checkpoint (`error` when that cannot be read), `busy` only while other runs wait on it.
   */
  async endUnheld(run: RunRecord, action: "interrupt" | "rollback"): Promise<void> {
    const { store, threads, clock, queue, log } = this.#options;
    const now = clock().toISOString();
    const thread = await threads.refresh(run.thread_id).catch((cause: unknown) => {
      log?.error({ runId: run.run_id, threadId: run.thread_id, err: cause }, "reading the thread's state after its run failed");
      return store.metadata.updateThread(run.thread_id, { status: "error", error: stateUnreadable }, now);
    });
    if (thread && (await queue.inFlight(run.thread_id)).some((id) => id !== run.run_id)) await store.metadata.updateThread(run.thread_id, { status: "busy" }, now);
    await queue.end(run, action === "rollback" ? "rollback" : "interrupted", undefined, now);
  }

  /**
   * Records a run's end: the thread from its checkpoint first, then the run's status through the
   * queue, which frees the thread for its next run (on a shared queue, perhaps on another replica,
   * so the thread is never refreshed under a run that already started). A state that cannot be read
   * ends the run `error` and the thread `error` with the reason; a run cancelled before its end is
   * recorded ends interrupted (or rolled back), never `success`. work() calls it once more, as
   * `error`, when something here throws.
   */
  async #finish(run: RunRecord, kept: KeptRun, status: RunStatus | "rollback", error: { error: string; message: string } | undefined, temporary: boolean, active: ActiveRun): Promise<void> {
    const { store, threads, clock, queue, log } = this.#options;
    const now = clock().toISOString();
    const stillQueued = (await queue.inFlight(run.thread_id)).filter((id) => id !== run.run_id);
    let thread: ThreadRecord | undefined;
    try {
      thread = await threads.refresh(run.thread_id, status === "error" ? { status: "error", error: error ?? null } : {});
    } catch (cause) {
      log?.error({ ...active.who, err: cause }, "reading the thread's state after its run failed");
      if (status !== "rollback" && status !== "error") {
        kept.log.push("error", JSON.stringify(stateUnreadable));
        status = "error";
      }
      error ??= stateUnreadable;
      active.ended = { status, error: error.error };
      thread = await store.metadata.updateThread(run.thread_id, { status: "error", error }, now);
    }
    // What join returns for a finished run, kept as long as its events (a stateless run's thread is gone by then).
    // The record's values name their large strings by blob markers; join answers the strings (read before a temporary thread is deleted).
    kept.result = error ? { __error__: error } : thread ? await threads.expand(resultOf(thread), thread.thread_id) : {};
    if (stillQueued.length > 0 && thread) await store.metadata.updateThread(run.thread_id, { status: "busy" }, now);
    let ending = status === "success" && thread?.status === "interrupted" ? "interrupted" : status;
    // A cancel that came while the run was being finished (its state read, say) was answered: the run does not end as a success.
    if (ending === "success" && active.action) ending = active.action === "rollback" ? "rollback" : "interrupted";
    active.ended = { ...active.ended, status: ending };
    // Its figures first, so whoever sees the run ended sees them too (a rolled-back run's record goes).
    if (ending !== "rollback") await store.metadata.recordRunSummary(run.run_id, summaryOf(active, error)).catch((cause: unknown) => log?.error({ ...active.who, err: cause }, "recording the run's figures failed"));
    await queue.end(run, ending, error, now);
    active.recorded = true;
    if (temporary && stillQueued.length === 0) await threads.delete(run.thread_id, serverAccess).catch(() => undefined);
  }
}

/** The run's event log, opened with its first event (the run id) by whichever comes first: create, or the run's turn. */
export function openRunLog(events: RunEventStore, runId: string): KeptRun {
  const existing = events.get(runId);
  if (existing) return existing;
  const kept = events.open(runId);
  // The first event at once, so a client learns the run id even while the run waits its turn.
  kept.log.push("metadata", JSON.stringify({ run_id: runId, attempt: 1 }));
  return kept;
}

/** A run taken from this process: abandoned where the store can (its events are the taker's now), else finished. */
export function abandonOrFinish(events: RunEventStore, runId: string): void {
  if (events.abandon) events.abandon(runId);
  else events.finish(runId);
}

/** The thread's values as wait/join answer them: with `__interrupt__` when the run stopped at an interrupt. */
export function resultOf(thread: ThreadRecord): JsonObject {
  const interrupts = Object.values(thread.interrupts).flat();
  return { ...(thread.values ?? {}), ...(interrupts.length > 0 ? { __interrupt__: interrupts } : {}) };
}

/** A run's summary from what its worker saw: how long it executed, what it spent, how it failed. */
function summaryOf(active: ActiveRun, error: { error: string; message: string } | undefined): RunSummary {
  const duration = active.runningSince === undefined ? 0 : Math.round(performance.now() - active.runningSince);
  return { duration_ms: duration, ...active.figures, ...(error ? { error: { error: error.error, message: error.message } } : {}) };
}

/** Waits `after_seconds`, or less when the run is cancelled meanwhile. */
function delay(seconds: number | undefined, signal: AbortSignal): Promise<void> {
  if (!seconds || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, seconds * 1000);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
