import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";

/** True for a listed tool that the server runs only as a task (`execution.taskSupport: "required"`). */
export function requiresTask(tool: CatalogTool): boolean {
  const execution = tool.execution;
  return typeof execution === "object" && execution !== null && (execution as { taskSupport?: unknown }).taskSupport === "required";
}

/**
 * Calls a tool the server runs only as a task (MCP tasks: tools/call with `task` answers a task,
 * then tasks/get is polled at the server's pollInterval until it ends, then tasks/result gives the
 * CallToolResult). `timeoutMs` bounds each request and the whole call: past it the task is
 * cancelled (best effort) and the call fails with a request timeout, as a plain call would.
 */
export async function callToolAsTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<CallToolResult> {
  const deadline = Date.now() + options.timeoutMs;
  const requestOptions = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}), task: {} };
  let taskId: string | undefined;
  let statusMessage: string | undefined;
  for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, requestOptions)) {
    switch (message.type) {
      case "taskCreated":
      case "taskStatus":
        taskId = message.task.taskId;
        statusMessage = message.task.statusMessage ?? statusMessage;
        if (Date.now() > deadline) {
          await client.experimental.tasks.cancelTask(taskId, { timeout: 1000 }).catch(() => {});
          throw new McpError(ErrorCode.RequestTimeout, `Request timed out (task ${taskId} was still ${message.task.status})`);
        }
        break;
      case "result":
        return message.result as CallToolResult;
      case "error":
        throw statusMessage && !message.error.message.includes(statusMessage) ? new McpError(message.error.code, `${message.error.message.replace(/^MCP error -?\d+: /, "")}: ${statusMessage}`) : message.error;
    }
  }
  throw new McpError(ErrorCode.InternalError, `the task of tool ${name} ended without a result`);
}
