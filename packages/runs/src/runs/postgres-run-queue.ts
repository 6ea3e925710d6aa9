import crypto from "node:crypto";
import os from "node:os";
import type pg from "pg";
import type { RunRecord, RunStatus } from "../persistence/agent-records.js";
import { postgresDialect } from "../persistence/postgres-database.js";
import { recordOf, rowParameters, runsTable } from "../persistence/schema.js";
import { PostgresRunEnds, type RunEnd } from "./postgres-run-ends.js";
import type { PostgresListener } from "../persistence/postgres-listener.js";
import { listenToRunNotices, type RunNotice } from "./postgres-run-listener.js";
import * as sql from "./postgres-run-sql.js";
import { admitUnder, type Admitted, type RunQueue, type RunQueueHandlers, type RunTicket, type RunTurn, type SharedRunQueueOptions } from "./run-queue.js";
import type { RunRequest } from "./run-request.js";

type RunError = { error: string; message: string };
type ClaimedRow = Record<string, unknown> & { cancel_action: "interrupt" | "rollback" | null; temporary_thread: string | null };

/** A run this replica holds: admitted here and pending, or claimed and executing here. */
interface Held {
  readonly threadId: string;
  working: boolean;
  /** Its end is being recorded (a heartbeat must not take it for lost meanwhile). */
  ending: boolean;
}

/**
 * RunQueue shared by agent replicas on one Postgres database (README.md, "Runs across replicas").
 * A run is a row of `thinktank_runs`. Admission runs in one transaction under the thread's advisory
 * lock: the multitask rule over the thread's pending and running rows, their cancel marks, the new
 * row (owned by this replica), the thread busy. Each replica claims the runs it owns when their turn
 * comes (`claimRun`: the oldest pending run of a thread none of whose runs is running, FOR UPDATE
 * SKIP LOCKED) and executes them; it heartbeats every run it holds, and any replica marks a running
 * run whose heartbeat went stale `error`, and claims pending runs of a stale replica. Cancels and
 * ends travel as NOTIFY on one channel; the heartbeat also reads the rows, so a lost notice costs
 * one heartbeat at most.
 */
export class PostgresRunQueue implements RunQueue {
  readonly #pool: pg.Pool;
  readonly #options: SharedRunQueueOptions;
  readonly #replica: string;
  readonly #listener: PostgresListener;
  readonly #held = new Map<string, Held>();
  /** The runs executing here (their handlers.run), for shutdown. */
  readonly #working = new Set<Promise<void>>();
  /** Those waiting for runs' ends (join, cancel with wait). */
  readonly #ends: PostgresRunEnds;
  readonly #timers = new Set<NodeJS.Timeout>();
  #handlers: RunQueueHandlers | undefined;
  #tick: NodeJS.Timeout | undefined;
  #ticking = false;
  #looking: Promise<void> | undefined;
  #lookAgain = false;
  #closed = false;

  private constructor(pool: pg.Pool, url: string, options: SharedRunQueueOptions) {
    this.#pool = pool;
    this.#options = options;
    this.#replica = options.replicaId ?? `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
    this.#ends = new PostgresRunEnds(pool, (runId, error) => options.log?.error({ runId, err: error }, "reading a run's end failed"));
    this.#listener = listenToRunNotices({ url, log: options.log, onNotice: (notice) => this.#hear(notice), onReconnect: () => this.#catchUp() });
  }

  /** Listens on the runs channel before it returns, so no notice meant for this replica is missed after start. */
  static async open(pool: pg.Pool, url: string, options: SharedRunQueueOptions): Promise<PostgresRunQueue> {
    const queue = new PostgresRunQueue(pool, url, options);
    await queue.#listener.open();
    return queue;
  }

  /** This replica's name in the rows it owns. */
  get replicaId(): string {
    return this.#replica;
  }

  start(handlers: RunQueueHandlers): void {
    this.#handlers = handlers;
    this.#tick = setInterval(() => void this.#heartbeat(), this.#options.heartbeatSeconds * 1000);
    this.#tick.unref();
    this.#look();
  }

  async admit(run: RunRecord, ticket: RunTicket): Promise<Admitted> {
    const threadId = run.thread_id;
    let admitted: Admitted | undefined;
    await this.#transaction(async (client) => {
      await client.query(sql.lockThread, [threadId]);
      const before = (await client.query<{ run_id: string }>(sql.inFlightRuns, [threadId])).rows.map((row) => row.run_id);
      const admission = admitUnder(ticket.strategy, threadId, before);
      // A thread's runs are in creation order however the replicas' clocks differ: after the newest one.
      const newest = (await client.query<{ newest: string | null }>(sql.newestRun, [threadId])).rows[0]?.newest;
      const createdAt = newest && newest >= run.created_at ? new Date(Date.parse(newest) + 1).toISOString() : run.created_at;
      const recorded: RunRecord = { ...run, created_at: createdAt, updated_at: createdAt };
      if (admission.cancel) await client.query(sql.markCancelled, [[...admission.before], admission.cancel]);
      await client.query(sql.insertRun, [...rowParameters(runsTable, recorded), this.#replica, ticket.request.after_seconds ?? 0, ticket.temporary ? "delete" : null]);
      await client.query(sql.threadBusy, [threadId, run.created_at]);
      admitted = { ...admission, run: recorded };
    });
    this.#held.set(run.run_id, { threadId, working: false, ending: false });
    const after = ticket.request.after_seconds ?? 0;
    if (after > 0) this.#later(after * 1000);
    this.#look();
    return admitted as Admitted;
  }

  async cancel(threadId: string, runId: string, action: "interrupt" | "rollback"): Promise<boolean> {
    const { rows } = await this.#pool.query(sql.cancelRun, [runId, threadId, action]);
    // A cancelled pending run may start at once (past its after_at, to end as cancelled).
    if (rows.length > 0) this.#look();
    return rows.length > 0;
  }

  async end(run: RunRecord, status: RunStatus | "rollback", error: RunError | undefined, now: string): Promise<void> {
    const held = this.#held.get(run.run_id);
    if (held) held.ending = true;
    await this.#transaction(async (client) => {
      await client.query(sql.lockThread, [run.thread_id]);
      const changed =
        status === "rollback"
          ? (await client.query(sql.deleteRun, [run.run_id, this.#replica])).rowCount
          : (await client.query(sql.endRun, [run.run_id, this.#replica, status, now, status === "error" && error ? JSON.stringify(error) : null])).rowCount;
      if (!changed) return;
      await client.query(sql.threadBusyIfQueued, [run.thread_id, run.run_id, now]);
      await client.query(sql.notifyEnd, [run.run_id, run.thread_id]);
    });
  }

  release(_threadId: string, runId: string): void {
    const held = this.#held.get(runId);
    this.#held.delete(runId);
    if (held && !held.ending) {
      // Its bookkeeping failed before the end was recorded: the run must not stay `running` with nobody heartbeating it.
      const error = { error: "INTERNAL", message: "the run's end could not be recorded (see the agent server's log)" };
      void this.end({ run_id: runId, thread_id: held.threadId } as RunRecord, "error", error, this.#options.clock().toISOString()).catch((cause: unknown) =>
        this.#options.log?.error({ runId, err: cause }, "recording a run's failed end failed"),
      );
    }
    this.#look();
  }

  async inFlight(threadId: string): Promise<string[]> {
    return (await this.#pool.query<{ run_id: string }>(sql.inFlightRuns, [threadId])).rows.map((row) => row.run_id);
  }

  held(threadId: string): string[] {
    return [...this.#held].filter(([, held]) => held.threadId === threadId).map(([runId]) => runId);
  }

  async settled(_threadId: string, runIds: readonly string[]): Promise<void> {
    await Promise.all(runIds.map((runId) => this.ended(runId)));
  }

  /** Waits for the run's end notice (or its row gone), reading the row first and at each heartbeat (a notice may be lost while reconnecting). */
  ended(runId: string, signal?: AbortSignal): Promise<RunEnd> {
    return this.#ends.wait(runId, signal);
  }

  async settledAll(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#tick);
    for (const timer of this.#timers) clearTimeout(timer);
    await this.#looking;
    // Runs admitted here that never started end here now (the manager cancelled them), not in their turn, which may be far.
    for (const [runId, held] of this.#held) {
      if (held.working) continue;
      const { rows } = await this.#pool.query<ClaimedRow>(sql.heldPendingRun, [this.#replica, runId]).catch(() => ({ rows: [] as ClaimedRow[] }));
      const row = rows[0];
      if (row) this.#begin({ ...this.#turn(row), cancel: row.cancel_action ?? "interrupt" });
      else this.#held.delete(runId);
    }
    await Promise.allSettled([...this.#working]);
    this.#ends.close();
    await this.#listener.close();
  }

  #hear(notice: RunNotice): void {
    if (notice.k === "cancel") {
      if (this.#held.has(notice.r)) this.#handlers?.cancel(notice.r, notice.a);
    } else {
      this.#ends.check(notice.r);
    }
    this.#look();
  }

  /** After the channel was down: notices may be lost, so look at the rows. */
  #catchUp(): void {
    this.#ends.checkAll();
    void this.#heartbeat();
  }

  /** Claims every run whose turn came, one by one; one look at a time (a request meanwhile looks again after). */
  #look(): void {
    if (this.#closed || !this.#handlers) return;
    if (this.#looking) {
      this.#lookAgain = true;
      return;
    }
    this.#looking = (async () => {
      do {
        this.#lookAgain = false;
        for (;;) {
          if (this.#closed) return;
          const { rows } = await this.#pool.query<ClaimedRow>(sql.claimRun, [this.#replica, this.#options.clock().toISOString(), this.#options.staleAfterSeconds]);
          const row = rows[0];
          if (!row) break;
          this.#begin(this.#turn(row));
        }
      } while (this.#lookAgain);
    })()
      .catch((error: unknown) => this.#options.log?.error({ err: error }, "claiming runs failed (the next heartbeat looks again)"))
      .finally(() => (this.#looking = undefined));
  }

  #turn(row: ClaimedRow): RunTurn {
    const run = recordOf<RunRecord>(runsTable, postgresDialect, row);
    return { run, request: run.kwargs as unknown as RunRequest, temporary: row.temporary_thread === "delete", delaySeconds: 0, cancel: row.cancel_action ?? undefined };
  }

  #begin(turn: RunTurn): void {
    const runId = turn.run.run_id;
    const held = this.#held.get(runId) ?? { threadId: turn.run.thread_id, working: false, ending: false };
    held.working = true;
    this.#held.set(runId, held);
    const work = (this.#handlers as RunQueueHandlers).run(turn).finally(() => this.#working.delete(work));
    this.#working.add(work);
  }

  /** A look in `ms` (a run's after_seconds). */
  #later(ms: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#look();
    }, ms + 5);
    timer.unref();
    this.#timers.add(timer);
  }

  /**
   * Every heartbeat_seconds: says this replica still holds its runs (and hears cancels asked of
   * them), stops runs taken from it, marks other replicas' stale runs `error`, looks for work and
   * re-checks the ends waited for (the bounded fallback for lost notices).
   */
  async #heartbeat(): Promise<void> {
    if (this.#ticking || this.#closed) return;
    this.#ticking = true;
    try {
      const held = [...this.#held.keys()];
      const { rows } = held.length > 0 ? await this.#pool.query<{ run_id: string; cancel_action: "interrupt" | "rollback" | null }>(sql.heartbeat, [this.#replica, held]) : { rows: [] };
      const alive = new Set(rows.map((row) => row.run_id));
      for (const row of rows) if (row.cancel_action) this.#handlers?.cancel(row.run_id, row.cancel_action);
      for (const runId of held) {
        const still = this.#held.get(runId);
        if (alive.has(runId) || !still || still.ending) continue;
        this.#options.log?.error({ runId, threadId: still.threadId }, "a run was taken from this agent server (its heartbeat went stale): stopping it");
        this.#held.delete(runId);
        this.#handlers?.lost(runId);
      }
      await this.#sweep();
    } catch (error) {
      this.#options.log?.error({ err: error }, "the run heartbeat failed");
    } finally {
      this.#ticking = false;
    }
    this.#look();
    this.#ends.checkAll();
  }

  /** Marks running runs whose replica stopped heartbeating `error`, with the reason, after bringing their threads up to date. */
  async #sweep(): Promise<void> {
    const stale = this.#options.staleAfterSeconds;
    const { rows } = await this.#pool.query<{ run_id: string; thread_id: string; silent: number }>(sql.staleRuns, [stale]);
    for (const row of rows) {
      const who = { runId: row.run_id, threadId: row.thread_id, silentSeconds: Math.round(row.silent) };
      const error = { error: "REPLICA_STOPPED", message: `the agent server executing it stopped: no heartbeat for ${who.silentSeconds} s` };
      try {
        await this.#handlers?.abandoned(row.thread_id, error);
        const now = this.#options.clock().toISOString();
        let marked = false;
        await this.#transaction(async (client) => {
          await client.query(sql.lockThread, [row.thread_id]);
          if (!(await client.query(sql.markStale, [row.run_id, stale, now, JSON.stringify(error)])).rowCount) return;
          await client.query(sql.threadBusyIfQueued, [row.thread_id, row.run_id, now]);
          await client.query(sql.notifyEnd, [row.run_id, row.thread_id]);
          marked = true;
        });
        if (!marked) continue;
        this.#handlers?.endedElsewhere(row.run_id);
        this.#options.log?.info(who, "marked a run error: the agent server executing it stopped heartbeating");
      } catch (cause) {
        this.#options.log?.error({ ...who, err: cause }, "marking a stale run failed (the next heartbeat tries again)");
      }
    }
  }

  async #transaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      await work(client);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
