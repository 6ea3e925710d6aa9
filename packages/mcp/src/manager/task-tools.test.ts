import path from "node:path";
import { fileURLToPath } from "node:url";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpManager } from "./mcp-manager.js";

// Tools a server runs only as tasks (execution.taskSupport "required", as server-everything's
// simulate-research-query): the SDK's plain callTool refuses them.
const taskServerPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "testing", "task-server.mjs");

let temp: { dir: string; cleanup: () => void };
let manager: McpManager | undefined;
beforeEach(() => {
  temp = makeTempDir("tt-mcp-tasks-");
});
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  temp.cleanup();
});

function makeManager(callTimeoutMs: number): McpManager {
  manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 20_000, call_timeout_ms: callTimeoutMs, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") },
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
    { tasks: { command: process.execPath, args: [taskServerPath] } },
  );
  return manager;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isThinktankError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("tools that run only as tasks", () => {
  it("calls them as tasks and answers their result", async () => {
    const tasks = makeManager(30_000);
    expect((await tasks.listTools("tasks")).map((tool) => [tool.name, tool.execution])).toEqual([
      ["report", { taskSupport: "required" }],
      ["fail_task", { taskSupport: "required" }],
      ["never_done", { taskSupport: "required" }],
    ]);
    const result = await tasks.callTool("tasks", "report");
    expect(result).toMatchObject({ content: [{ type: "text", text: "report ready" }], structuredContent: { done: true } });
    expect((await tasks.callTool("tasks", "report")).structuredContent).toEqual({ done: true });
  });

  it("reports a failed task with its status message, and a task still working past call_timeout_ms as a timeout", async () => {
    const tasks = makeManager(1000);
    const failed = await rejection(tasks.callTool("tasks", "fail_task"));
    expect(failed.code).toBe("MCP_PROTOCOL_ERROR");
    expect(failed.message).toMatch(/^MCP server 'tasks' answered tools\/call fail_task with an error: MCP error -32603: Task \w+ failed: disk full$/);
    expect(await rejection(tasks.callTool("tasks", "never_done"))).toEqual({ code: "MCP_CALL_TIMEOUT", message: "MCP server 'tasks' did not answer tools/call never_done within 1000 ms" });
    expect((await tasks.callTool("tasks", "report")).structuredContent).toEqual({ done: true });
  });
});
