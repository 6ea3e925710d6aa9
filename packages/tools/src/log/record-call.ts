import type { ToolResponse } from "../tool-response.js";
import type { ExecutionLog } from "./execution-log.js";

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

/** Writes one finished call to the log (when there is one); never rejects. `sandboxed`: where the script ran, when a tool was found. */
export async function recordCall(log: ExecutionLog | undefined, tool: string, args: unknown, start: CallStart, response: ToolResponse, options: CallOrigin, sandboxed?: boolean): Promise<void> {
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
    ...(sandboxed !== undefined ? { sandboxed } : {}),
  });
}
