import crypto from "node:crypto";
import type { Config } from "@thinktank/core";
import { ThinktankError } from "@thinktank/core";
import { resolveAssistantId } from "../assistants/lead-assistant.js";
import type { JsonObject, MultitaskStrategy, RunRecord, RunStatus, ThreadRecord } from "@thinktank/runs";
import { isUuid } from "@thinktank/runs";
import type { AgentStore } from "../persistence/open-agent-store.js";
import type { RequestContext, RequestInfo } from "../request/request-context.js";
import { threadFolders } from "../request/thread-folders.js";
import { checkThreadId } from "@thinktank/runs";
import type { ThreadService } from "@thinktank/runs";
import { awaitCallbackHandlers } from "./await-callback-handlers.js";
import { executeRun } from "./execute-run.js";
import { KeptRunEvents, type KeptRun } from "./kept-run-events.js";
import type { RunEventLog } from "./run-event-log.js";
import type { RunRequest } from "./run-request.js";

export interface RunManagerOptions {
  readonly config: Config;
  readonly store: AgentStore;
  readonly threads: ThreadService;
  readonly prepare: (request: RequestInfo) => Promise<RequestContext>;
  readonly clock: () => Date;
  /** Where a run's own lines go (the server's logger): each names the run and the request that created it (`reqId`). */
  readonly log?: RunLog;
}

export interface RunLog {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

interface ActiveRun {
  readonly controller: AbortController;
  action?: "interrupt" | "rollback";
  /** How the run ended, for its log line. */
  ended?: { status: RunStatus | "rollback"; error?: string };
}

/**
 * Creates and executes runs. Runs of one thread execute one at a time in creation order;
 * `multitask_strategy` decides what a new run does while another is pending or running:
 * reject (409 THREAD_BUSY), enqueue (wait), interrupt (cancel the others), rollback (cancel and
 * delete them). Events go to an in-memory log per run that streams and joins follow, kept within
 * agent.run_events (retention time, finished runs, bytes).
 */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #kept: KeptRunEvents;
  readonly #active = new Map<string, ActiveRun>();
  readonly #queued = new Map<string, Set<string>>();
  readonly #tails = new Map<string, Promise<void>>();

  constructor(options: RunManagerOptions) {
    this.#options = options;
    const bounds = options.config.agent.run_events;
    this.#kept = new KeptRunEvents({ retentionMs: bounds.retention_seconds * 1000, maxRuns: bounds.max_runs, maxBytes: bounds.max_mb * 1024 * 1024 });
    // Before the first run: the stream's `messages` events come from callback handlers (see there).
    awaitCallbackHandlers();
  }

  /**
   * Validates and records a run, then starts it in the background. `threadId` undefined: a
   * stateless run on a temporary thread. `events` is the run's log (for a stream of this request).
   * `requestId` (the creating request's) goes on the run's log lines.
   */
  async create(threadId: string | undefined, request: RunRequest, origin: { requestId?: string } = {}): Promise<{ run: RunRecord; temporary: boolean; events: RunEventLog }> {
    // The id rule first: nothing is read or stored for an id that POST /threads would refuse.
    if (threadId !== undefined) checkThreadId(threadId);
    const checkpointId = request.checkpoint_id ?? request.checkpoint?.checkpoint_id;
    if (checkpointId && !isUuid(checkpointId)) throw new ThinktankError("NOT_FOUND", `no checkpoint ${JSON.stringify(checkpointId)}`);
    const assistantId = resolveAssistantId(request.assistant_id);
    const threads = this.#options.threads;
    const temporary = threadId === undefined && (request.on_completion ?? "delete") === "delete";
    if (threadId === undefined) {
      threadId = (await threads.create({ metadata: request.metadata })).thread_id;
    } else if (!(await this.#options.store.metadata.getThread(threadId))) {
      if (request.if_not_exists !== "create") throw new ThinktankError("THREAD_NOT_FOUND", `no thread ${threadId} (pass if_not_exists: "create" to create it)`);
      await threads.create({ threadId, ifExists: "do_nothing" });
    }
    const strategy: MultitaskStrategy = request.multitask_strategy ?? "reject";
    const inFlight = this.inFlight(threadId);
    if (inFlight.length > 0 && strategy === "reject") {
      throw new ThinktankError("THREAD_BUSY", `thread ${threadId} is running ${inFlight[0]}: wait for it, or pass multitask_strategy enqueue, interrupt or rollback`);
    }
    const now = this.#options.clock().toISOString();
    const run: RunRecord = {
      run_id: crypto.randomUUID(),
      thread_id: threadId,
      assistant_id: assistantId,
      created_at: now,
      updated_at: now,
      status: "pending",
      metadata: request.metadata ?? {},
      kwargs: { ...request } as JsonObject,
      multitask_strategy: strategy,
    };
    // Claim the thread before the first await, so two requests at once cannot both pass the busy check.
    const queued = this.#queued.get(threadId) ?? new Set<string>();
    queued.add(run.run_id);
    this.#queued.set(threadId, queued);
    try {
      await this.#options.store.metadata.createRun(run);
      await this.#options.store.metadata.updateThread(threadId, { status: "busy" }, now);
    } catch (error) {
      queued.delete(run.run_id);
      if (queued.size === 0) this.#queued.delete(threadId);
      throw error;
    }
    if (strategy === "interrupt" || strategy === "rollback") for (const other of inFlight) this.#cancelActive(other, strategy);
    const kept = this.#schedule(run, request, temporary, origin.requestId);
    return { run, temporary, events: kept.log };
  }

  async get(threadId: string, runId: string): Promise<RunRecord> {
    checkThreadId(threadId);
    const run = await this.#record(runId);
    if (!run || run.thread_id !== threadId) throw new ThinktankError("RUN_NOT_FOUND", `no run ${runId} on thread ${threadId}`);
    return run;
  }

  async find(runId: string): Promise<RunRecord> {
    const run = await this.#record(runId);
    if (!run) throw new ThinktankError("RUN_NOT_FOUND", `no run ${runId}`);
    return run;
  }

  list(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    return this.#options.store.metadata.listRuns(threadId, options);
  }

  async delete(threadId: string, runId: string): Promise<void> {
    await this.get(threadId, runId);
    if (this.isActive(runId)) throw new ThinktankError("THREAD_BUSY", `run ${runId} is pending or running: cancel it first`);
    await this.#options.store.metadata.deleteRun(runId);
  }

  /** The event log of a run still in memory (pending or running, or finished and not yet dropped). */
  events(runId: string): RunEventLog | undefined {
    return this.#kept.get(runId)?.log;
  }

  /** Runs whose events are kept, finished ones among them, and their bytes. */
  keptEvents(): { runs: number; finished: number; bytes: number } {
    return this.#kept.size;
  }

  isActive(runId: string): boolean {
    return this.#active.has(runId) || [...this.#queued.values()].some((ids) => ids.has(runId));
  }

  /** Runs of a thread that are pending or running. */
  inFlight(threadId: string): string[] {
    return [...(this.#queued.get(threadId) ?? [])];
  }

  /** Waits until the run ends; returns the thread's values (with __interrupt__ / __error__ as the API does). */
  async join(threadId: string, runId: string, signal?: AbortSignal): Promise<JsonObject> {
    await this.get(threadId, runId);
    // The entry itself, not a lookup after the end: the run may be dropped as soon as it finishes.
    const kept = this.#kept.get(runId);
    if (kept) for await (const _event of kept.log.follow(undefined, signal));
    if (kept?.result) return kept.result;
    const thread = await this.#options.store.metadata.getThread(threadId);
    return thread ? resultOf(thread) : {};
  }

  /** Cancels a pending or running run; `rollback` also deletes it once stopped. */
  async cancel(threadId: string, runId: string, action: "interrupt" | "rollback", wait: boolean): Promise<void> {
    checkThreadId(threadId);
    const run = await this.#record(runId);
    if (!run || run.thread_id !== threadId) throw new ThinktankError("RUN_NOT_FOUND", `no run ${runId} on thread ${threadId}`);
    if (!this.isActive(runId)) return;
    this.#cancelActive(runId, action);
    if (wait) await this.#tails.get(threadId);
  }

  /** Cancels every run of the thread and waits for them to stop (before deleting the thread). */
  async cancelThread(threadId: string): Promise<void> {
    for (const runId of this.inFlight(threadId)) this.#cancelActive(runId, "interrupt");
    await this.#tails.get(threadId);
  }

  /** Stops every run (server shutdown) and waits for them to record their end. */
  async shutdown(): Promise<void> {
    for (const ids of this.#queued.values()) for (const runId of ids) this.#cancelActive(runId, "interrupt");
    await Promise.allSettled([...this.#tails.values()]);
    this.#kept.clear();
  }

  /** Run ids are UUIDs this server made: any other id names no run and never reaches the store. */
  async #record(runId: string): Promise<RunRecord | undefined> {
    return isUuid(runId) ? this.#options.store.metadata.getRun(runId) : undefined;
  }

  #cancelActive(runId: string, action: "interrupt" | "rollback"): void {
    const active = this.#active.get(runId);
    if (!active) return;
    active.action = action;
    active.controller.abort();
  }

  #schedule(run: RunRecord, request: RunRequest, temporary: boolean, requestId: string | undefined): KeptRun {
    const threadId = run.thread_id;
    const kept = this.#kept.open(run.run_id);
    // The first event at once, so a client learns the run id even while the run waits its turn.
    kept.log.push("metadata", JSON.stringify({ run_id: run.run_id, attempt: 1 }));
    const queued = this.#queued.get(threadId) ?? new Set<string>([run.run_id]);
    // One controller for the run's whole life: cancelling a queued or delayed run stops it before it starts.
    const active: ActiveRun = { controller: new AbortController() };
    const started = performance.now();
    const who = { reqId: requestId, runId: run.run_id, threadId };
    this.#active.set(run.run_id, active);
    const previous = this.#tails.get(threadId) ?? Promise.resolve();
    const tail = previous
      .then(() => delay(request.after_seconds, active.controller.signal))
      .then(() => this.#execute(run, request, kept, active, temporary))
      .catch((error: unknown) => this.#options.log?.error({ ...who, err: error }, "run bookkeeping failed"))
      .finally(() => {
        const ended = { ...who, status: active.ended?.status ?? "error", ms: Math.round(performance.now() - started) };
        if (active.ended?.error) this.#options.log?.info({ ...ended, error: active.ended.error }, "run failed");
        else this.#options.log?.debug(ended, "run ended");
        queued.delete(run.run_id);
        this.#active.delete(run.run_id);
        if (this.#tails.get(threadId) === tail) this.#tails.delete(threadId);
        if (queued.size === 0) this.#queued.delete(threadId);
        this.#kept.finish(run.run_id);
      });
    this.#tails.set(threadId, tail);
    return kept;
  }

  async #execute(run: RunRecord, request: RunRequest, kept: KeptRun, active: ActiveRun, temporary: boolean): Promise<void> {
    const { store, clock, config } = this.#options;
    if (active.controller.signal.aborted) {
      active.ended = { status: active.action === "rollback" ? "rollback" : "interrupted" };
      await this.#finish(run, kept, active.ended.status, undefined, temporary);
      return;
    }
    await store.metadata.updateRun(run.run_id, { status: "running" }, clock().toISOString());
    const now = clock();
    // Inside prepare, so a thread id that is no safe folder name fails the run with its code.
    const prepare = () => {
      const requestInfo: RequestInfo = { config, threadId: run.thread_id, runId: run.run_id, now, folders: threadFolders(config, run.thread_id) };
      return this.#options.prepare(requestInfo);
    };
    const outcome = await executeRun({ run, request, store, log: kept.log, signal: active.controller.signal, prepare });
    // Cancelled (interrupt or rollback: rollback deletes the run record, not its checkpoints): close the tool calls it left open.
    if (outcome.status === "interrupted") {
      await this.#options.threads.closeCancelledToolCalls(run.thread_id).catch((error: unknown) => this.#options.log?.error({ runId: run.run_id, err: error }, "closing cancelled tool calls failed"));
    }
    const status = active.action === "rollback" ? "rollback" : outcome.status;
    active.ended = { status, error: outcome.error?.error };
    await this.#finish(run, kept, status, outcome.error, temporary);
  }

  async #finish(run: RunRecord, kept: KeptRun, status: RunStatus | "rollback", error: { error: string; message: string } | undefined, temporary: boolean): Promise<void> {
    const { store, threads, clock } = this.#options;
    const now = clock().toISOString();
    if (status === "rollback") await store.metadata.deleteRun(run.run_id);
    else await store.metadata.updateRun(run.run_id, { status }, now);
    const stillQueued = [...(this.#queued.get(run.thread_id) ?? [])].filter((id) => id !== run.run_id);
    const thread = await threads.refresh(run.thread_id, status === "error" ? { status: "error", error: error ?? null } : {});
    // What join returns for a finished run, kept as long as its events (a stateless run's thread is gone by then).
    kept.result = error ? { __error__: error } : thread ? resultOf(thread) : {};
    if (status === "success" && thread?.status === "interrupted") await store.metadata.updateRun(run.run_id, { status: "interrupted" }, now);
    if (temporary && stillQueued.length === 0) {
      await threads.delete(run.thread_id).catch(() => undefined);
      return;
    }
    if (stillQueued.length > 0 && thread) await store.metadata.updateThread(run.thread_id, { status: "busy" }, now);
  }
}

/** The thread's values as wait/join answer them: with `__interrupt__` when the run stopped at an interrupt. */
function resultOf(thread: ThreadRecord): JsonObject {
  const interrupts = Object.values(thread.interrupts).flat();
  return { ...(thread.values ?? {}), ...(interrupts.length > 0 ? { __interrupt__: interrupts } : {}) };
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
