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
  /**
   * A sandboxed script's connections through the egress proxy, allowed or refused, in the order they
   * ended (the first ones, up to the log's `maxNetworkRecords`). Absent when it made none.
   */
  readonly network?: readonly ExecutionNetworkRecord[];
  /** Connections it made beyond those listed in `network`: counted, not listed. Absent when none. */
  readonly network_omitted?: number;
}

/** One connection in a record's `network`. */
export interface ExecutionNetworkRecord {
  /** `connect` (a tunnel, e.g. HTTPS) or `http` (one absolute-form request). */
  readonly kind: "connect" | "http";
  readonly host: string;
  readonly port: number;
  /** The address the proxy connected to, or the one it refused. */
  readonly address?: string;
  readonly allowed: boolean;
  /** The pattern that allowed it, or why it was refused (one line, at most 300 characters). */
  readonly reason: string;
  /** The proxy's answer: 200 for an open tunnel, the target's status for a request, 4xx/5xx from the proxy itself. */
  readonly status: number;
  readonly bytes_sent: number;
  readonly bytes_received: number;
  readonly ms: number;
}

/** What a caller hands the log; the log adds the id and redacts. */
export type ExecutionEntry = Omit<ExecutionRecord, "id">;
