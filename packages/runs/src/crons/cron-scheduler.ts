import { setMaxListeners } from "node:events";
import { isThinktankError } from "@thinktank/core";
import type { JsonObject, RunRecord } from "../persistence/agent-records.js";
import type { Access } from "../owners/access.js";
import type { RunManager } from "../runs/run-manager.js";
import type { RunRequest } from "../runs/run-request.js";
import type { CronPause, CronRow } from "./cron-record.js";
import { CronSchedule } from "./cron-schedule.js";
import type { SqlCronStore } from "./sql-cron-store.js";

/** What a missed time does: fired once when a replica runs again (`catch_up`), or skipped. */
export type OnMissed = "catch_up" | "skip";

/** One fire, as it happened (for logs, tests and the benchmark). */
export interface CronFire {
  readonly cronId: string;
  /** The time it fired for (epoch ms). */
  readonly scheduledFor: number;
  /** When runs.create returned (epoch ms, by the clock), or the fire was decided without a run. */
  readonly firedAt: number;
  /** The run it created; undefined when skipped, refused or paused. */
  readonly runId?: string;
  readonly outcome: "fired" | "caught_up" | "skipped" | "failed" | "paused" | "ended" | "taken_over";
  /** Why it failed or paused. */
  readonly reason?: CronPause;
}

export interface CronSchedulerOptions {
  readonly store: SqlCronStore;
  /** Each fire is an ordinary run of this manager, created as the cron's owner. */
  readonly runs: RunManager;
  /** Whether a run exists (a fire taken over from a replica that stopped mid-fire may have made it). */
  readonly runExists: (runId: string) => Promise<boolean>;
  /**
   * The access a cron's fires run with, or undefined when its owner is gone (the cron is paused,
   * USER_NOT_FOUND). @default the owner as a user: `{ owner, anyById: false, everyone: false }`
   */
  readonly ownerAccess?: (ownerId: string) => Promise<Access | undefined>;
  readonly clock: () => Date;
  /** This process's name in the claims it writes (the run queue's replica id on Postgres). */
  readonly replicaId: string;
  /** Another replica's claim older than this is taken over (it stopped mid-fire). 0: one process, every other claim is a dead process's. */
  readonly staleAfterMs: number;
  /** The longest the scheduler sleeps without looking at the table (a change whose notice was lost). @default 5000 */
  readonly pollMs?: number;
  /** crons.max_consecutive_failures. */
  readonly maxConsecutiveFailures: number;
  /** crons.on_missed. */
  readonly onMissed: OnMissed;
  /** crons.missed_after_seconds, in ms: a fire later than this after its time is a missed time. */
  readonly missedAfterMs: number;
  /** Hears other replicas' changes (Postgres NOTIFY); each call of `onChange` re-plans the timer. @default none (one process) */
  readonly listen?: (onChange: () => void) => Promise<{ close(): Promise<void> }>;
  /** Crons claimed per statement. @default 100 */
  readonly batch?: number;
  /** Fires in progress at once. @default 8 */
  readonly concurrency?: number;
  readonly onFire?: (fire: CronFire) => void;
  readonly log?: { info(fields: object, message: string): void; error(fields: object, message: string): void };
}

/** Codes of runs.create that mean the cron cannot fire again as it is: paused at once, not retried. */
const gone = new Set(["ASSISTANT_NOT_FOUND", "THREAD_NOT_FOUND"]);

/**
 * Fires crons (README.md, "Crons"): sleeps until the earliest time in the table (or `pollMs`, or a
 * change heard), claims the crons whose time came in batches, and makes each fire an ordinary run
 * with `runs.create` as the cron's owner, under the run id its claim chose. A fire late by more
 * than `missedAfterMs` is a missed time: fired once with `metadata.catch_up: true` (the times
 * missed with it are not fired again), or skipped. Watches each run it made to its end and counts
 * failures; a cron whose thread, assistant or owner is gone is paused with the reason.
 */
export class CronScheduler {
  readonly #options: CronSchedulerOptions;
  readonly #schedules = new Map<string, CronSchedule>();
  readonly #watching = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #listener: { close(): Promise<void> } | undefined;
  #closed = false;

  constructor(options: CronSchedulerOptions) {
    this.#options = options;
    // One listener per run watched (joins in flight): as many as fires whose runs have not ended.
    setMaxListeners(0, this.#stop.signal);
  }

  /** Listens for other replicas' changes (when configured), then plans the first look. */
  async start(): Promise<void> {
    if (this.#options.listen) this.#listener = await this.#options.listen(() => this.wake());
    this.wake();
  }

  /** Looks at the table now (a cron was created or changed here). */
  wake(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    this.#ticking = this.#tick().finally(() => {
      this.#ticking = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Stops firing, waits for the fires in progress, stops watching runs (their ends are not counted). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#ticking;
    this.#stop.abort();
    await Promise.allSettled([...this.#watching]);
    await this.#listener?.close();
  }

  async #tick(): Promise<void> {
    const { store, replicaId, staleAfterMs } = this.#options;
    const batch = this.#options.batch ?? 100;
    try {
      for (;;) {
        if (this.#closed) return;
        const now = this.#options.clock().getTime();
        const claimed = await store.claimDue(replicaId, now, now - staleAfterMs, batch);
        if (claimed.length === 0) break;
        await this.#fireAll(claimed);
        if (claimed.length < batch) break;
      }
    } catch (error) {
      this.#options.log?.error({ err: error }, "crons: looking for due crons failed (looking again soon)");
    }
    await this.#plan();
  }

  /** Sets the timer for the next look: the earliest time due, at most pollMs away. */
  async #plan(): Promise<void> {
    if (this.#closed) return;
    const pollMs = this.#options.pollMs ?? 5000;
    let wait = pollMs;
    try {
      const next = await this.#options.store.nextWake(this.#options.replicaId, this.#options.staleAfterMs);
      if (next !== undefined) wait = Math.max(0, Math.min(pollMs, next - this.#options.clock().getTime()));
    } catch (error) {
      this.#options.log?.error({ err: error }, "crons: reading the next time failed");
    }
    if (this.#closed || this.#again) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.wake(), wait);
    this.#timer.unref();
  }

  async #fireAll(rows: readonly CronRow[]): Promise<void> {
    const queue = [...rows];
    const workers = Array.from({ length: Math.min(this.#options.concurrency ?? 8, queue.length) }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) {
        try {
          await this.#fire(row);
        } catch (error) {
          this.#options.log?.error({ err: error, cronId: row.cron_id }, "crons: a fire failed to record (its claim is taken over once stale)");
        }
      }
    });
    await Promise.all(workers);
  }

  async #fire(row: CronRow): Promise<void> {
    const { store, replicaId, clock } = this.#options;
    const at = row.next_run_at as number;
    const runId = row.claim_run_id as string;
    const now = clock();
    const nowIso = now.toISOString();
    const report = (fire: Omit<CronFire, "cronId" | "scheduledFor" | "firedAt">, firedAt = clock().getTime()) => this.#options.onFire?.({ cronId: row.cron_id, scheduledFor: at, firedAt, ...fire });
    const schedule = this.#schedule(row);
    const end = row.end_time === null ? Infinity : Date.parse(row.end_time);
    const missed = now.getTime() - at > this.#options.missedAfterMs;
    // After a missed time, the next is the first after now: the times missed with it are not fired one by one.
    let next = schedule?.next(new Date(missed ? Math.max(now.getTime(), at) : at))?.getTime() ?? null;
    if (next !== null && next > end) next = null;
    const finish = (made: string | null) => store.finishFire(row.cron_id, replicaId, at, next, made, clock().toISOString());

    if (!schedule || at > end) {
      await finish(null);
      return report({ outcome: "ended" });
    }
    if (missed && this.#options.onMissed === "skip") {
      await finish(null);
      this.#options.log?.info({ cronId: row.cron_id, scheduledFor: new Date(at).toISOString() }, "crons: skipped a time missed while no agent server ran (crons.on_missed: skip)");
      return report({ outcome: "skipped" });
    }
    // A claim taken over from a replica that stopped mid-fire: its run may exist already.
    if (await this.#options.runExists(runId)) {
      await finish(runId);
      return report({ outcome: "taken_over", runId });
    }
    const access = await (this.#options.ownerAccess ?? userAccess)(row.owner_id);
    if (!access) {
      const reason = { code: "USER_NOT_FOUND", message: `its owner ${row.owner_id} no longer exists`, at: nowIso };
      await store.pause(row.cron_id, reason);
      await finish(null);
      return report({ outcome: "paused", reason });
    }
    const metadata: JsonObject = {
      ...row.metadata,
      ...((row.payload.metadata as JsonObject | undefined) ?? {}),
      cron_id: row.cron_id,
      scheduled_for: new Date(at).toISOString(),
      ...(missed ? { catch_up: true, missed_times: Math.max(1, schedule.countBetween(new Date(at - 1), now, 1000)) } : {}),
    };
    const request = {
      ...row.payload,
      assistant_id: row.assistant_id,
      metadata,
      multitask_strategy: (row.payload.multitask_strategy as RunRequest["multitask_strategy"] | undefined) ?? "enqueue",
      ...(row.thread_id === null ? { on_completion: (row.on_run_completed as "delete" | "keep" | null) ?? "delete" } : {}),
    } as RunRequest;
    let run: RunRecord;
    try {
      ({ run } = await this.#options.runs.create(row.thread_id ?? undefined, request, { access, runId }));
    } catch (error) {
      if (isDuplicateKey(error)) {
        await finish(runId);
        return report({ outcome: "taken_over", runId });
      }
      const reason: CronPause = isThinktankError(error)
        ? { code: error.code, message: error.message, at: nowIso }
        : { code: "INTERNAL", message: `the run could not be created: ${(error as Error).message}`, at: nowIso };
      if (gone.has(reason.code)) {
        await store.pause(row.cron_id, reason);
        await finish(null);
        this.#options.log?.info({ cronId: row.cron_id, reason }, "crons: paused a cron whose thread or assistant is gone");
        return report({ outcome: "paused", reason });
      }
      const paused = await store.recordOutcome(row.cron_id, reason, this.#options.maxConsecutiveFailures);
      await finish(null);
      return report({ outcome: paused ? "paused" : "failed", reason });
    }
    const firedAt = clock().getTime();
    await finish(runId);
    report({ outcome: missed ? "caught_up" : "fired", runId }, firedAt);
    this.#watch(row.cron_id, run, access);
  }

  /** Counts the run's end: an error is a failure (the cron pauses after max_consecutive_failures), any other end clears them. */
  #watch(cronId: string, run: RunRecord, access: Access): void {
    const watching = this.#options.runs
      .join(run.thread_id, run.run_id, access, this.#stop.signal)
      .then(async (result) => {
        if (this.#stop.signal.aborted) return;
        const error = result.__error__ as { error?: string; message?: string } | undefined;
        const reason = error ? { code: error.error ?? "INTERNAL", message: `run ${run.run_id} failed: ${error.message ?? "no message"}`, at: this.#options.clock().toISOString() } : undefined;
        const paused = await this.#options.store.recordOutcome(cronId, reason, this.#options.maxConsecutiveFailures);
        if (paused) this.#options.log?.info({ cronId, reason }, "crons: paused a cron that failed too many times in a row");
      })
      .catch(() => undefined)
      .finally(() => this.#watching.delete(watching));
    this.#watching.add(watching);
  }

  /** The row's schedule, parsed once per expression and zone; undefined when it no longer parses (it is then ended). */
  #schedule(row: CronRow): CronSchedule | undefined {
    const key = `${row.timezone ?? ""}\u0000${row.schedule}`;
    let schedule = this.#schedules.get(key);
    if (!schedule) {
      try {
        schedule = CronSchedule.parse(row.schedule, row.timezone);
      } catch {
        return undefined;
      }
      if (this.#schedules.size > 10_000) this.#schedules.clear();
      this.#schedules.set(key, schedule);
    }
    return schedule;
  }
}

async function userAccess(ownerId: string): Promise<Access> {
  return { owner: ownerId, anyById: false, everyone: false };
}

/** A run record inserted twice (its id chosen by the claim): SQLite's or Postgres's unique violation. */
function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}
