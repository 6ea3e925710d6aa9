import type pg from "pg";
import type { RunStatus } from "../persistence/agent-records.js";
import * as sql from "./postgres-run-sql.js";

type RunError = { error: string; message: string };
export type RunEnd = { error?: RunError } | undefined;

/**
 * Those waiting for runs to end (join, cancel with wait) on a replica of the shared queue: each
 * wait reads the run's row, then again when the run's end notice comes (`check(runId)`) or the
 * heartbeat re-reads every wait (`checkAll`, the bounded fallback for a notice lost while the
 * LISTEN connection reconnected).
 */
export class PostgresRunEnds {
  readonly #pool: pg.Pool;
  readonly #onError: (runId: string, error: unknown) => void;
  readonly #waiters = new Map<string, Set<() => void>>();
  #closed = false;

  constructor(pool: pg.Pool, onError: (runId: string, error: unknown) => void) {
    this.#pool = pool;
    this.#onError = onError;
  }

  /** Resolves once the run's row is no longer pending or running (or gone), with how it failed; undefined when `signal` aborts or the queue closes. */
  wait(runId: string, signal?: AbortSignal): Promise<RunEnd> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(runId) ?? new Set<() => void>();
      this.#waiters.set(runId, waiters);
      const done = (end: RunEnd) => {
        if (!waiters.delete(check)) return;
        if (waiters.size === 0) this.#waiters.delete(runId);
        signal?.removeEventListener("abort", abort);
        resolve(end);
      };
      const abort = () => done(undefined);
      const check = () => {
        if (this.#closed) return done(undefined);
        this.#pool.query<{ status: RunStatus; end_error: RunError | null }>(sql.runEnd, [runId]).then(
          ({ rows: [row] }) => {
            if (!row || (row.status !== "pending" && row.status !== "running")) done(row?.end_error ? { error: row.end_error } : {});
          },
          (error: unknown) => this.#onError(runId, error),
        );
      };
      waiters.add(check);
      signal?.addEventListener("abort", abort, { once: true });
      if (signal?.aborted) return abort();
      check();
    });
  }

  /** The run's end notice came. */
  check(runId: string): void {
    for (const check of [...(this.#waiters.get(runId) ?? [])]) check();
  }

  checkAll(): void {
    for (const checks of this.#waiters.values()) for (const check of [...checks]) check();
  }

  /** Every wait resolves (undefined) at once: the server shuts down. */
  close(): void {
    this.#closed = true;
    this.checkAll();
  }
}
