import type { RunSummary } from "../runs/run-figures.js";

/**
 * Thread and run records as the LangGraph Platform API returns them (snake_case, ISO timestamps).
 * The checkpointer holds the graph state; these records hold what the API lists and filters on.
 */
export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";
export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
export type MultitaskStrategy = "reject" | "interrupt" | "rollback" | "enqueue";

export type JsonObject = Record<string, unknown>;

export interface ThreadRecord {
  readonly thread_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly state_updated_at: string;
  readonly metadata: JsonObject;
  readonly status: ThreadStatus;
  /** The latest state values (messages as plain dicts), copied after each run for listing. */
  readonly values: JsonObject | null;
  /** Pending interrupts by task id. */
  readonly interrupts: Readonly<Record<string, unknown[]>>;
  readonly error: { readonly error: string; readonly message: string } | null;
  /** Who owns the thread: a caller's id (`admin` for the operator and for threads from before owners). */
  readonly owner_id: string;
}

export interface RunRecord {
  readonly run_id: string;
  readonly thread_id: string;
  readonly assistant_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly status: RunStatus;
  readonly metadata: JsonObject;
  /** The request as given (input, command, config, stream modes ...), kept for the queue and for GET. */
  readonly kwargs: JsonObject;
  readonly multitask_strategy: MultitaskStrategy;
  /**
   * Whom the run executes for: the id of the caller who created it (the thread's owner, or an
   * administrator acting on it). Who may see the run follows its thread.
   */
  readonly owner_id: string;
}

export interface ThreadSearch {
  /** Only this owner's threads. @default everyone's */
  readonly owner?: string;
  readonly metadata?: JsonObject;
  readonly values?: JsonObject;
  readonly status?: ThreadStatus;
  readonly ids?: readonly string[];
  readonly limit: number;
  readonly offset: number;
  readonly sort_by: "thread_id" | "status" | "created_at" | "updated_at" | "state_updated_at";
  readonly sort_order: "asc" | "desc";
}

export type ThreadPatch = Partial<Pick<ThreadRecord, "metadata" | "status" | "values" | "interrupts" | "error" | "state_updated_at">>;
export type RunPatch = Partial<Pick<RunRecord, "status">>;

/** A run as the activity list shows it (GET /runs/recent): its record and, once it ended, its figures. */
export interface RecentRun extends RunRecord {
  readonly summary?: RunSummary;
}
