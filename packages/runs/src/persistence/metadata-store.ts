import type { RunSummary } from "../runs/run-figures.js";
import type { RecentRun, RunPatch, RunRecord, RunStatus, ThreadPatch, ThreadRecord, ThreadSearch } from "./agent-records.js";

/** The part of a thread search that picks threads (no order, no page). */
export type ThreadFilter = Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">;

/**
 * Thread and run records beside the checkpoints. One implementation over SQLite (the embedded default)
 * and Postgres (sql-metadata-store.ts); every method is async so either fits. Timestamps come from the caller's clock.
 */
export interface MetadataStore {
  createThread(thread: ThreadRecord): Promise<void>;
  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  /** Applies the patch and sets updated_at; returns the new record, or undefined when the thread is gone. */
  updateThread(threadId: string, patch: ThreadPatch, now: string): Promise<ThreadRecord | undefined>;
  /**
   * Sets one key of a thread's metadata and nothing else (no read-modify-write of the record, so a
   * concurrent status change is kept): a run's assistant_id, remembered on its thread.
   */
  setThreadMetadataKey(threadId: string, key: string, value: string): Promise<void>;
  /** Deletes the thread and its runs; false when there was none. */
  deleteThread(threadId: string): Promise<boolean>;
  searchThreads(search: ThreadSearch): Promise<ThreadRecord[]>;
  countThreads(search: ThreadFilter): Promise<number>;

  createRun(run: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  updateRun(runId: string, patch: RunPatch, now: string): Promise<RunRecord | undefined>;
  deleteRun(runId: string): Promise<boolean>;
  /** Runs of a thread, newest first. */
  listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]>;
  /** Keeps a run's figures (duration, tokens, tool calls, its error) with it, when it ends. */
  recordRunSummary(runId: string, summary: RunSummary): Promise<void>;
  /** Runs across threads, newest first, with their figures: only those on `owner`'s threads when given. */
  listRecentRuns(options: { limit: number; owner?: string }): Promise<RecentRun[]>;
  /**
   * After a restart no run is executing: pending and running runs become `error` and busy threads
   * `idle` (or `interrupted` when an interrupt was pending). Returns how many runs were closed.
   */
  closeStaleRuns(now: string): Promise<number>;
  close(): Promise<void>;
}

/** True when every key of `filter` equals (deep, JSON-wise) the same key of `value`. */
export function containsAll(value: Record<string, unknown> | null, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  if (!value) return Object.keys(filter).length === 0;
  return Object.entries(filter).every(([key, expected]) => JSON.stringify(value[key]) === JSON.stringify(expected));
}
