import { columnList, runsTable } from "../persistence/schema.js";
import { runsChannel } from "./postgres-run-listener.js";

/**
 * The statements of PostgresRunQueue over `thinktank_runs` and its queue columns (schema.ts,
 * runQueueColumns). Times in those columns are epoch seconds by the database's clock.
 */
const runColumns = columnList(runsTable);
const columnsCount = runsTable.columns.length;
const nowEpoch = "extract(epoch from clock_timestamp())";
/** What a claim hands over: the record, and what the run manager needs beside it. */
const claimed = `${runColumns}, cancel_action, temporary_thread`;

/** Holds the thread's admissions and ends one at a time until the transaction ends. */
export const lockThread = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))";

/** $1 thread: its runs pending or running, oldest first. */
export const inFlightRuns = "SELECT run_id FROM thinktank_runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY created_at, run_id";

/** $1 thread: the creation time of its newest run (a new run's created_at comes after it). */
export const newestRun = "SELECT max(created_at) AS newest FROM thinktank_runs WHERE thread_id = $1";

/** $1 run ids, $2 action: the runs a new run's strategy cancels, each with a notice for its owner. */
export const markCancelled = `WITH marked AS (UPDATE thinktank_runs SET cancel_action = $2 WHERE run_id = ANY($1::text[]) AND status IN ('pending', 'running') RETURNING run_id)
SELECT pg_notify('${runsChannel}', json_build_object('k', 'cancel', 'r', run_id, 'a', $2::text)::text) FROM marked`;

/** $1 run, $2 thread, $3 action: one cancel, with a notice for the run's owner; a row when it was pending or running. */
export const cancelRun = `WITH marked AS (UPDATE thinktank_runs SET cancel_action = $3 WHERE run_id = $1 AND thread_id = $2 AND status IN ('pending', 'running') RETURNING run_id)
SELECT pg_notify('${runsChannel}', json_build_object('k', 'cancel', 'r', run_id, 'a', $3::text)::text) FROM marked`;

/** The record's columns, then owner, after_seconds (0: none) and temporary_thread. */
export const insertRun = `INSERT INTO thinktank_runs (${runColumns}, owner, heartbeat_at, after_at, temporary_thread)
VALUES (${runsTable.columns.map((_, index) => `$${index + 1}`).join(", ")}, $${columnsCount + 1}, ${nowEpoch},
  CASE WHEN $${columnsCount + 2}::double precision > 0 THEN ${nowEpoch} + $${columnsCount + 2}::double precision END, $${columnsCount + 3})`;

/** $1 thread, $2 now. */
export const threadBusy = "UPDATE thinktank_threads SET status = 'busy', updated_at = $2 WHERE thread_id = $1";

/**
 * $1 replica, $2 now (ISO), $3 stale seconds: claims the oldest run that may start: pending, the
 * oldest pending run of its thread while none of its thread runs, past its after_at (or cancelled),
 * held by this replica or by one whose heartbeat went stale. Rows another replica is claiming are
 * skipped, not waited for.
 */
export const claimRun = `UPDATE thinktank_runs SET status = 'running', owner = $1, heartbeat_at = ${nowEpoch}, updated_at = $2
WHERE status = 'pending' AND run_id = (
  SELECT r.run_id FROM thinktank_runs r
  WHERE r.status = 'pending' AND r.heartbeat_at IS NOT NULL
    AND (r.owner = $1 OR r.heartbeat_at < ${nowEpoch} - $3::double precision)
    AND (r.after_at IS NULL OR r.after_at <= ${nowEpoch} OR r.cancel_action IS NOT NULL)
    AND NOT EXISTS (
      SELECT 1 FROM thinktank_runs o
      WHERE o.thread_id = r.thread_id AND o.run_id <> r.run_id
        AND (o.status = 'running' OR (o.status = 'pending' AND (o.created_at < r.created_at OR (o.created_at = r.created_at AND o.run_id < r.run_id))))
    )
  ORDER BY r.created_at, r.run_id
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
RETURNING ${claimed}`;

/** $1 replica, $2 run: a pending run this replica holds, for ending it out of turn (shutdown). */
export const heldPendingRun = `SELECT ${claimed} FROM thinktank_runs WHERE run_id = $2 AND owner = $1 AND status = 'pending'`;

/** $1 run, $2 replica, $3 status, $4 now, $5 end_error: the end, if this replica still holds the run. */
export const endRun = "UPDATE thinktank_runs SET status = $3, updated_at = $4, end_error = $5 WHERE run_id = $1 AND owner = $2 AND status IN ('pending', 'running')";

/** $1 run, $2 replica: a rolled-back run goes, if this replica still holds it. */
export const deleteRun = "DELETE FROM thinktank_runs WHERE run_id = $1 AND owner = $2";

/** $1 thread, $2 run that just ended, $3 now: the thread stays busy while other runs wait on it. */
export const threadBusyIfQueued = `UPDATE thinktank_threads SET status = 'busy', updated_at = $3 WHERE thread_id = $1 AND status <> 'busy'
  AND EXISTS (SELECT 1 FROM thinktank_runs WHERE thread_id = $1 AND run_id <> $2 AND status IN ('pending', 'running'))`;

/** $1 run, $2 thread: tells every replica the run ended (joins, cancels with wait, and the next run's claim). */
export const notifyEnd = `SELECT pg_notify('${runsChannel}', json_build_object('k', 'end', 'r', $1::text, 't', $2::text)::text)`;

/** $1 replica, $2 run ids: this replica still holds them; the rows that are still its own come back with any cancel asked of them. */
export const heartbeat = `UPDATE thinktank_runs SET heartbeat_at = ${nowEpoch} WHERE owner = $1 AND run_id = ANY($2::text[]) AND status IN ('pending', 'running')
RETURNING run_id, cancel_action`;

/** $1 stale seconds: running runs whose replica stopped heartbeating, and for how long (s). */
export const staleRuns = `SELECT run_id, thread_id, ${nowEpoch} - heartbeat_at AS silent FROM thinktank_runs
WHERE status = 'running' AND heartbeat_at < ${nowEpoch} - $1::double precision`;

/** $1 run, $2 stale seconds, $3 now, $4 end_error: marks a stale run `error`, unless its replica came back meanwhile. */
export const markStale = `UPDATE thinktank_runs SET status = 'error', owner = NULL, updated_at = $3, end_error = $4
WHERE run_id = $1 AND status = 'running' AND heartbeat_at < ${nowEpoch} - $2::double precision`;

/** $1 run: whether it is still pending or running, and how it failed. */
export const runEnd = "SELECT status, end_error FROM thinktank_runs WHERE run_id = $1";
