#!/usr/bin/env node
// A small real MCP server over stdio whose tools run only as tasks (`execution.taskSupport:
// "required"`, MCP tasks): tools/call with `task` answers a task, tasks/get reports it, tasks/result
// gives its CallToolResult. Built on the SDK's McpServer with its in-memory task store.
//
// Tools:
//   report      completes 50 ms after it starts (the client polls every 10 ms) with "report ready" (text)
//               and { done: true } (structured)
//   fail_task   fails, with the status message "disk full"
//   never_done  stays "working" until cancelled
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: "thinktank-test-task-server", version: "1.0.0" },
  { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
);
const config = (description) => ({ description, execution: { taskSupport: "required" } });
const created = (extra) => extra.taskStore.createTask({ ttl: 60_000, pollInterval: 10 });

server.experimental.tasks.registerToolTask("report", config("Completes 50 ms after it starts."), {
  createTask: async (extra) => {
    const task = await created(extra);
    setTimeout(() => {
      extra.taskStore.storeTaskResult(task.taskId, "completed", { content: [{ type: "text", text: "report ready" }], structuredContent: { done: true } }).catch(() => {});
    }, 50);
    return { task };
  },
  getTask: (extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId),
});

server.experimental.tasks.registerToolTask("fail_task", config("Fails."), {
  createTask: async (extra) => {
    const task = await created(extra);
    await extra.taskStore.updateTaskStatus(task.taskId, "failed", "disk full");
    return { task };
  },
  getTask: (extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId),
});

server.experimental.tasks.registerToolTask("never_done", config("Stays working until cancelled."), {
  createTask: async (extra) => ({ task: await created(extra) }),
  getTask: (extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId),
});

await server.connect(new StdioServerTransport());
