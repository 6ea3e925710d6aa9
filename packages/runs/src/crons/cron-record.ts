import type { JsonObject } from "../persistence/agent-records.js";

/** Why a cron stopped firing by itself: a code (THREAD_NOT_FOUND, ASSISTANT_NOT_FOUND, USER_NOT_FOUND, or the last failure's) and words, and when. */
export interface CronPause {
  readonly code: string;
  readonly message: string;
  readonly at: string;
}

/**
 * A cron as the API answers it: the fields of the SDK's `Cron`, and Thinktank's own after them
 * (`paused_reason`, `consecutive_failures`, `last_run_id`). `user_id` is its owner. `payload` is
 * what each fire's run request carries besides `assistant_id` (input, config, context, ...).
 */
export interface CronRecord {
  readonly cron_id: string;
  readonly assistant_id: string;
  /** The thread every fire runs on; null: a new thread each fire. */
  readonly thread_id: string | null;
  /** A thread-less cron's new thread after its run: deleted (the default) or kept. Null for a thread's cron. */
  readonly on_run_completed: "delete" | "keep" | null;
  readonly end_time: string | null;
  readonly schedule: string;
  readonly timezone: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly payload: JsonObject;
  readonly user_id: string;
  /** The next time it fires; null when paused, disabled or past its end_time. */
  readonly next_run_date: string | null;
  readonly metadata: JsonObject;
  readonly enabled: boolean;
  readonly paused_reason: CronPause | null;
  readonly consecutive_failures: number;
  readonly last_run_id: string | null;
}

/** A row of `thinktank_crons` (schema.ts): the record's fields as kept, and the claim of a fire in progress. */
export interface CronRow {
  readonly cron_id: string;
  readonly owner_id: string;
  readonly assistant_id: string;
  readonly thread_id: string | null;
  readonly schedule: string;
  readonly timezone: string | null;
  readonly end_time: string | null;
  readonly on_run_completed: string | null;
  readonly payload: JsonObject;
  readonly metadata: JsonObject;
  /** 1 or 0. */
  readonly enabled: number;
  /** Epoch milliseconds of the next time; null when it does not fire. */
  readonly next_run_at: number | null;
  readonly paused_reason: CronPause | null;
  readonly failures: number;
  readonly last_run_id: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** The replica firing `next_run_at` now, since when (epoch ms), and the run id that fire creates. */
  readonly claim_replica: string | null;
  readonly claim_at: number | null;
  readonly claim_run_id: string | null;
}

/** Which crons a search or count covers (the caller's, unless `owner` is undefined: everyone's). */
export interface CronFilter {
  readonly owner?: string;
  readonly assistant_id?: string;
  readonly thread_id?: string;
  readonly enabled?: boolean;
  readonly metadata?: JsonObject;
}

export interface CronSearch extends CronFilter {
  readonly limit: number;
  readonly offset: number;
  readonly sort_by: "cron_id" | "assistant_id" | "thread_id" | "created_at" | "updated_at" | "next_run_date";
  readonly sort_order: "asc" | "desc";
}

/** The record a row answers as. */
export function cronRecordOf(row: CronRow): CronRecord {
  return {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    on_run_completed: row.thread_id === null ? ((row.on_run_completed as "delete" | "keep" | null) ?? "delete") : null,
    end_time: row.end_time,
    schedule: row.schedule,
    timezone: row.timezone,
    created_at: row.created_at,
    updated_at: row.updated_at,
    payload: row.payload,
    user_id: row.owner_id,
    next_run_date: row.next_run_at === null ? null : new Date(row.next_run_at).toISOString(),
    metadata: row.metadata,
    enabled: row.enabled === 1,
    paused_reason: row.paused_reason,
    consecutive_failures: row.failures,
    last_run_id: row.last_run_id,
  };
}
