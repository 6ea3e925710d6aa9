import type { ScriptNetwork } from "../execution/sandboxed-script-runner.js";
import type { ToolResponse } from "../tool-response.js";
import type { ExecutionLog } from "./execution-log.js";
import type { ExecutionNetworkRecord } from "./execution-record.js";

/** When a call started: the wall clock for the log, and a monotonic reading for its duration. */
export interface CallStart {
  readonly at: Date;
  readonly ms: number;
}

/** Who made the call, as the log records it (the executor's InvokeOptions carry it). */
export interface CallOrigin {
  readonly source?: string;
  readonly threadId?: string;
  readonly runId?: string;
}

/** What the executor knows of how the call ran, beyond its answer. */
export interface CallDetails {
  /** Where the script ran: true in the sandbox, false on the host. Absent when no tool was found. */
  readonly sandboxed?: boolean;
  /** A sandboxed script's connections through the egress proxy (the log keeps the first ones and counts the rest). */
  readonly network?: ScriptNetwork;
}

/** Writes one finished call to the log (when there is one); never rejects. */
export async function recordCall(log: ExecutionLog | undefined, tool: string, args: unknown, start: CallStart, response: ToolResponse, options: CallOrigin, details: CallDetails = {}): Promise<void> {
  if (!log) return;
  await log.record({
    tool,
    arguments: args,
    started_at: start.at.toISOString(),
    duration_ms: Math.round((performance.now() - start.ms) * 100) / 100,
    status: response.status,
    ...(response.status === "success" ? { output: response.data } : { error: response.error }),
    ...(options.source ? { source: options.source } : {}),
    ...(options.threadId ? { thread_id: options.threadId } : {}),
    ...(options.runId ? { run_id: options.runId } : {}),
    ...(details.sandboxed !== undefined ? { sandboxed: details.sandboxed } : {}),
    ...(details.network && details.network.connections.length > 0 ? { network: details.network.connections.map(networkRecord) } : {}),
    ...(details.network && details.network.omitted > 0 ? { network_omitted: details.network.omitted } : {}),
  });
}

/** A connection as the log keeps it (snake_case as the rest of the record; the run's label is the tool's name, already there). */
function networkRecord(connection: ScriptNetwork["connections"][number]): ExecutionNetworkRecord {
  return {
    kind: connection.kind,
    host: connection.host,
    port: connection.port,
    ...(connection.address !== undefined ? { address: connection.address } : {}),
    allowed: connection.allowed,
    reason: connection.reason,
    status: connection.status,
    bytes_sent: connection.bytesSent,
    bytes_received: connection.bytesReceived,
    ms: Math.round(connection.ms * 100) / 100,
  };
}
