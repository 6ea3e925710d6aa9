import crypto from "node:crypto";
import { isThinktankError, ThinktankError } from "@thinktank/core";
import type { JsonObject, MultitaskStrategy, RecentRun, RunRecord, RunStatus } from "../persistence/agent-records.js";
import type { AgentStore } from "../persistence/agent-store.js";
import { isUuid } from "../persistence/is-uuid.js";
import type { AssistantChoice } from "../assistants/assistant-service.js";
import { reaches, type Access } from "../owners/access.js";
import { checkThreadId } from "../threads/thread-id.js";
import { selectFields } from "../threads/select-fields.js";
import type { ThreadService } from "../threads/thread-service.js";
import type { RunExecutor } from "./run-executor.js";
import type { RunEvents, RunEventStore } from "./run-event-store.js";
import { LocalRunQueue } from "./local-run-queue.js";
import type { RunQueue } from "./run-queue.js";
import { checkRunRequest, type RunRequest } from "./run-request.js";
import { abandonOrFinish, openRunLog, resultOf, RunWorker, type ActiveRun, type RunLog } from "./run-worker.js";

/** What a run list's `select` may name. */
const runFields = ["run_id", "thread_id", "assistant_id", "created_at", "updated_at", "status", "metadata", "kwargs", "multitask_strategy"];

export interface RunManagerOptions {
  readonly store: AgentStore;
  readonly threads: ThreadService;
  /** Executes one run and emits its events (graphRunExecutor over the app's graph). */
  readonly execute: RunExecutor;
  /** Where each run's events are kept for streams and join (KeptRunEvents, bounded by agent.run_events). */
  readonly events: RunEventStore;
  /** Which run goes next on each thread, and where it executes. @default new LocalRunQueue(store.metadata): this process */
  readonly queue?: RunQueue;
  /**
   * A request's assistant_id (an assistant id, or a graph id) as the assistant and version the run
   * uses, as the run's creator reaches it (AssistantService.resolve); throws ASSISTANT_NOT_FOUND for
   * others. The version goes in the run's `metadata.assistant_version`.
   */
  readonly resolveAssistant: (assistantId: string, access: Access) => Promise<AssistantChoice>;
  readonly clock: () => Date;
  /** Where a run's own lines go (the server's logger): each names the run and the request that created it (`reqId`). */
  readonly log?: RunLog;
}

/**
 * Creates runs and carries them through their lifecycle (README.md, "Run lifecycle"): records them,
 * admits them on their thread's queue under `multitask_strategy` (run-queue.ts), executes them in
 * turn (the RunExecutor), keeps their events for streams and join (the RunEventStore), records how
 * they ended and cancels them. Each of the three is a seam of its own, so a database-backed queue
 * and event store can replace the in-memory ones without touching the lifecycle here. A run's turn,
 * from its execution to its recorded end, is RunWorker's (run-worker.ts).
 */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #queue: RunQueue;
  readonly #events: RunEventStore;
  readonly #active = new Map<string, ActiveRun>();
  readonly #worker: RunWorker;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    this.#queue = options.queue ?? new LocalRunQueue(options.store.metadata);
    this.#events = options.events;
    const { store, threads, execute, clock, log } = options;
    this.#worker = new RunWorker({ store, threads, execute, clock, log, queue: this.#queue, events: this.#events, active: this.#active });
    this.#queue.start({
      run: (turn) => this.#worker.work(turn),
      cancel: (runId, action) => this.#cancelActive(runId, action),
      lost: (runId) => this.#lose(runId),
      abandoned: async (threadId, error) => void (await options.threads.refresh(threadId, { status: "error", error })),
      // Its followers on every replica end (a shared store writes the end its replica never wrote).
      endedElsewhere: (runId) => this.#events.finish(runId),
    });
  }

  /**
   * Validates and records a run, then starts it in the background. `threadId` undefined: a
   * stateless run on a temporary thread. `events` is the run's log (for a stream of this request).
   * `requestId` (the creating request's) goes on the run's log lines. The run executes for
   * `access.owner` (its `owner_id`), on a thread the caller reaches (a new one is theirs).
   * `runId`: the id the run takes (a UUID), chosen beforehand by a caller that must create a run
   * at most once (a cron's fire: a second create with the same id fails on the record's key).
   * @default a new UUID
   */
  async create(threadId: string | undefined, request: RunRequest, origin: { requestId?: string; access: Access; runId?: string }): Promise<{ run: RunRecord; temporary: boolean; events: RunEvents }> {
    const { access } = origin;
    if (origin.runId !== undefined && !isUuid(origin.runId)) throw new ThinktankError("INTERNAL", "a run id chosen beforehand must be a UUID");
    // The id rule first: nothing is read or stored for an id that POST /threads would refuse.
    if (threadId !== undefined) checkThreadId(threadId);
    const checkpointId = request.checkpoint_id ?? request.checkpoint?.checkpoint_id;
    if (checkpointId && !isUuid(checkpointId)) throw new ThinktankError("NOT_FOUND", `no checkpoint ${JSON.stringify(checkpointId)}`);
    const assistant = await this.#options.resolveAssistant(request.assistant_id, access);
    const threads = this.#options.threads;
    // Input the graph's state cannot take is refused here (422, the field named), never recorded: in the graph it would fail after reaching the checkpoint.
    this.check(request);
    const temporary = threadId === undefined && (request.on_completion ?? "delete") === "delete";
    // What the run adds to the thread's state (its input, a command's update) must fit under the thread's cap: nothing is recorded otherwise.
    const adds = [request.input, request.command?.update].filter((value) => value !== undefined && value !== null);
    if (threadId === undefined) {
      threads.checkRoom(undefined, adds);
      threadId = (await threads.create({ metadata: request.metadata }, access)).thread_id;
    } else {
      const thread = await this.#options.store.metadata.getThread(threadId);
      // Another owner's thread is missing to the caller; it cannot be created either (create answers CONFLICT).
      if (!thread || !reaches(access, thread.owner_id)) {
        if (request.if_not_exists !== "create") throw new ThinktankError("THREAD_NOT_FOUND", `no thread ${threadId} (pass if_not_exists: "create" to create it)`);
        threads.checkRoom(undefined, adds);
        await threads.create({ threadId, ifExists: "do_nothing" }, access);
      } else {
        threads.checkRoom(thread, adds);
      }
    }
    const strategy: MultitaskStrategy = request.multitask_strategy ?? "reject";
    const runId = origin.runId ?? crypto.randomUUID();
    const now = this.#options.clock().toISOString();
    const proposed: RunRecord = {
      run_id: runId,
      thread_id: threadId,
      assistant_id: assistant.assistant_id,
      created_at: now,
      updated_at: now,
      status: "pending",
      metadata: { ...request.metadata, assistant_version: assistant.version },
      kwargs: { ...request } as JsonObject,
      multitask_strategy: strategy,
      owner_id: access.owner,
    };
    // Held before admission, so a cancel finds it as soon as the run exists (dropped again when it is refused).
    this.#active.set(runId, { controller: new AbortController(), who: { reqId: origin.requestId, runId, threadId }, started: performance.now() });
    let admitted;
    try {
      admitted = await this.#queue.admit(proposed, { strategy, request, temporary });
    } catch (error) {
      this.#active.delete(runId);
      throw error;
    }
    if (admitted.cancel) for (const other of admitted.before) this.#cancelActive(other, admitted.cancel);
    const { log } = openRunLog(this.#events, runId);
    // On a store shared by replicas, the first event is readable everywhere before the client learns the run id.
    await log.flushed?.();
    // The thread remembers the assistant of its last run (its metadata.assistant_id, as LangGraph's do); after the log is open, so nothing waits on it.
    await this.#rememberAssistant(threadId, assistant.assistant_id);
    return { run: admitted.run, temporary, events: log };
  }

  /**
   * Refuses what a run request may not ask, with 422 and the field (`prefix` before it: a batch's
   * `[0]`): input the graph's state cannot take (ThreadService.checkInput), fields this server does
   * not implement (checkRunRequest). `create` checks each request; a batch checks all first.
   */
  check(request: RunRequest, prefix = ""): void {
    try {
      this.#options.threads.checkInput(request);
      checkRunRequest(request);
    } catch (error) {
      const field = isThinktankError(error) ? error.details?.field : undefined;
      if (!prefix || !isThinktankError(error) || typeof field !== "string") throw error;
      throw new ThinktankError(error.code, `${prefix}.${error.message}`, { details: { ...error.details, field: `${prefix}.${field}` } });
    }
  }

  /** A run of a thread the caller reaches (a run is seen by whoever reaches its thread); else RUN_NOT_FOUND, as for a missing run. */
  async get(threadId: string, runId: string, access: Access): Promise<RunRecord> {
    checkThreadId(threadId);
    const run = await this.#record(runId);
    if (!run || run.thread_id !== threadId || !(await this.#reachesThread(threadId, access))) throw new ThinktankError("RUN_NOT_FOUND", `no run ${runId} on thread ${threadId}`);
    return run;
  }

  async find(runId: string, access: Access): Promise<RunRecord> {
    const run = await this.#record(runId);
    if (!run || !(await this.#reachesThread(run.thread_id, access))) throw new ThinktankError("RUN_NOT_FOUND", `no run ${runId}`);
    return run;
  }

  /** The runs of a thread the caller reaches (THREAD_NOT_FOUND otherwise), newest first. */
  async list(threadId: string, options: { limit: number; offset: number; status?: RunStatus }, access: Access): Promise<RunRecord[]> {
    await this.#options.threads.get(threadId, access);
    return this.#options.store.metadata.listRuns(threadId, options);
  }

  /** Runs across the threads `access` lists (its owner's; everyone's for an administrator's `all` scope), newest first, with their figures. */
  async recent(options: { limit: number }, access: Access): Promise<RecentRun[]> {
    return this.#options.store.metadata.listRecentRuns({ limit: options.limit, ...(access.everyone ? {} : { owner: access.owner }) });
  }

  /** `list` as GET /threads/:id/runs answers it: with `select`, only those fields of each run (another name: VALIDATION_FAILED). */
  async listSelected(threadId: string, options: { limit: number; offset: number; status?: RunStatus; select?: readonly string[] }, access: Access): Promise<Partial<RunRecord>[]> {
    return (await this.list(threadId, options, access)).map((run) => selectFields(run, options.select, runFields, "select"));
  }

  async delete(threadId: string, runId: string, access: Access): Promise<void> {
    const run = await this.get(threadId, runId, access);
    if (this.isActive(runId) || run.status === "pending" || run.status === "running") throw new ThinktankError("THREAD_BUSY", `run ${runId} is pending or running: cancel it first`);
    await this.#options.store.metadata.deleteRun(runId);
  }

  /** The event log of a run still kept in this process (pending or running, or finished and not yet dropped). */
  events(runId: string): RunEvents | undefined {
    return this.#events.get(runId)?.log;
  }

  /** The event log of a run still kept, wherever it executes (a store shared by replicas finds other replicas' runs). */
  async findEvents(runId: string): Promise<RunEvents | undefined> {
    return (this.#events.get(runId) ?? (await this.#events.lookup?.(runId)))?.log;
  }

  /** Runs whose events are kept, finished ones among them, and their bytes. */
  keptEvents(): { runs: number; finished: number; bytes: number } {
    return this.#events.size;
  }

  /** Whether this process holds the run (pending or running here). */
  isActive(runId: string): boolean {
    return this.#active.has(runId);
  }

  /** Runs of a thread that are pending or running in this process (all of them with the one-process queue). */
  inFlight(threadId: string): string[] {
    return this.#queue.held(threadId);
  }

  /** Runs of a thread the caller reaches that are pending or running, on any replica, oldest first. */
  async inFlightRuns(threadId: string, access: Access): Promise<string[]> {
    await this.#options.threads.get(threadId, access);
    return this.#queue.inFlight(threadId);
  }

  /** Waits until the run ends; returns the thread's values (with __interrupt__ / __error__ as the API does). */
  async join(threadId: string, runId: string, access: Access, signal?: AbortSignal): Promise<JsonObject> {
    await this.get(threadId, runId, access);
    // The entry itself, not a lookup after the end: the run may be dropped as soon as it finishes.
    const kept = this.#events.get(runId) ?? (await this.#events.lookup?.(runId));
    if (kept) for await (const _event of kept.log.follow(undefined, signal));
    if (kept?.result) return kept.result;
    // No result with its events (executing on another replica before its events are shared, or its events are gone): its record's end.
    const end = await this.#queue.ended(runId, signal);
    if (end?.error) return { __error__: end.error };
    const thread = await this.#options.store.metadata.getThread(threadId);
    return thread ? this.#options.threads.expand(resultOf(thread), threadId) : {};
  }

  /** Cancels a pending or running run; `rollback` also deletes it once stopped. */
  async cancel(threadId: string, runId: string, action: "interrupt" | "rollback", wait: boolean, access: Access): Promise<void> {
    const run = await this.get(threadId, runId, access);
    const held = this.isActive(runId);
    if (!(await this.#queue.cancel(threadId, runId, action)) && !held) {
      // A record left pending or running that nothing holds (its end was never recorded): it ends now, as cancelled.
      if (run.status === "pending" || run.status === "running") await this.#worker.endUnheld(run, action);
      return;
    }
    this.#cancelActive(runId, action);
    if (wait) await this.#queue.settled(threadId, [runId]);
  }

  /** Cancels every run of a thread the caller reaches and waits for them to stop (before deleting the thread). */
  async cancelThread(threadId: string, access: Access): Promise<void> {
    const runIds = await this.inFlightRuns(threadId, access);
    for (const runId of runIds) {
      await this.#queue.cancel(threadId, runId, "interrupt");
      this.#cancelActive(runId, "interrupt");
    }
    await this.#queue.settled(threadId, runIds);
  }

  /**
   * POST /runs/cancel: cancels `runIds` (on `threadId` when given; each must be reached, else
   * RUN_NOT_FOUND before any is cancelled), or the pending / running / all in-flight runs of
   * `threadId`, or, with `status` alone, of every thread the caller reaches. Returns how many.
   */
  async cancelMany(selection: { threadId?: string; runIds?: readonly string[]; status?: "pending" | "running" | "all" }, action: "interrupt" | "rollback", access: Access): Promise<number> {
    const { threadId, runIds, status = "all" } = selection;
    const targets: RunRecord[] = [];
    if (runIds) {
      for (const runId of runIds) targets.push(threadId === undefined ? await this.find(runId, access) : await this.get(threadId, runId, access));
    } else {
      for (const thread of threadId === undefined ? await this.#busyThreads(access) : [checkThreadId(threadId)]) {
        for (const runId of await this.inFlightRuns(thread, access)) {
          const run = await this.#record(runId);
          if (run && (status === "all" ? run.status === "pending" || run.status === "running" : run.status === status)) targets.push(run);
        }
      }
    }
    for (const run of targets) await this.cancel(run.thread_id, run.run_id, action, false, access);
    return targets.length;
  }

  /** The ids of the busy threads the caller reaches (every run in flight keeps its thread busy). */
  async #busyThreads(access: Access): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await this.#options.threads.search({ status: "busy", limit: 1000, offset, sort_by: "thread_id", sort_order: "asc" }, access);
      ids.push(...page.map((thread) => thread.thread_id));
      if (page.length < 1000) return ids;
    }
  }

  /** Stops every run (server shutdown) and waits for them to record their end. */
  async shutdown(): Promise<void> {
    for (const runId of this.#active.keys()) this.#cancelActive(runId, "interrupt");
    await this.#queue.settledAll();
    if (this.#events.close) await this.#events.close();
    else this.#events.clear();
  }

  async #rememberAssistant(threadId: string, assistantId: string): Promise<void> {
    const thread = await this.#options.store.metadata.getThread(threadId);
    if (!thread || thread.metadata.assistant_id === assistantId) return;
    await this.#options.store.metadata.setThreadMetadataKey(threadId, "assistant_id", assistantId);
  }

  /** Whether the caller reaches the thread (an administrator reaches every one without a read). */
  async #reachesThread(threadId: string, access: Access): Promise<boolean> {
    if (access.anyById) return true;
    const thread = await this.#options.store.metadata.getThread(threadId);
    return thread !== undefined && reaches(access, thread.owner_id);
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

  /** The run was taken from this process: stop it; a run that never started here ends here at once (its log closes). */
  #lose(runId: string): void {
    const active = this.#active.get(runId);
    if (!active) return;
    active.lost = true;
    active.controller.abort();
    if (active.working) return;
    this.#active.delete(runId);
    abandonOrFinish(this.#events, runId);
  }
}
