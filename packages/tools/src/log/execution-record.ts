import type { ToolError } from "../tool-response.js";

/** One tool call as the execution log keeps it (one JSON line). */
export interface ExecutionRecord {
  /** Unique id of the call. */
  readonly id: string;
  readonly tool: string;
  /** The arguments as given, secrets redacted. */
  readonly arguments: unknown;
  /** ISO 8601, UTC. */
  readonly started_at: string;
  readonly duration_ms: number;
  readonly status: "success" | "error";
  /** The result's data (values under secret-looking keys masked; cut short when very large). */
  readonly output?: unknown;
  readonly error?: ToolError;
  /** Who called: "agent", "cli", "code" (an execute_code program), ... */
  readonly source?: string;
  readonly thread_id?: string;
  readonly run_id?: string;
  /** Where the script ran (or would have): true in the sandbox (an untrusted tool), false on the host. Absent when no tool was found. */
  readonly sandboxed?: boolean;
}

/** What a caller hands the log; the log adds the id and redacts. */
export type ExecutionEntry = Omit<ExecutionRecord, "id">;
