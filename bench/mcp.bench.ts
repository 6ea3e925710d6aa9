// MCP manager overhead: a tool call through McpManager.callTool against the same call made
// directly with the SDK Client, both to server-everything over stdio (its `echo` tool), in the
// same run with samples interleaved so load on the machine hits both alike.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpManager } from "@thinktank/mcp";
import { referenceServerScript } from "@thinktank/mcp/testing";
import { round, summarize } from "./harness.js";
import type { Benchmark } from "./harness.js";

const samples = 400;
const warmup = 50;

const benchmark: Benchmark = {
  title: "MCP manager: overhead per tool call over a direct SDK call",
  issue: 4,
  async run(context) {
    const script = referenceServerScript("server-everything");
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
    const catalogDir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-mcp-"));
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], env, stderr: "ignore" }));
    const manager = new McpManager(
      { mcp: { connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: 3, retry_base_delay_ms: 200, catalog_dir: catalogDir }, env },
      { everything: { command: process.execPath, args: [script] } },
    );
    try {
      await client.listTools();
      await manager.connect("everything");
      const args = { message: "benchmark" };
      const direct = (): Promise<unknown> => client.callTool({ name: "echo", arguments: args });
      const managed = (): Promise<unknown> => manager.callTool("everything", "echo", args);
      context.log(`warming up (${warmup} calls each)`);
      for (let i = 0; i < warmup; i++) {
        await direct();
        await managed();
      }
      context.log(`measuring ${samples} calls each, interleaved`);
      const directTimes: number[] = [];
      const managedTimes: number[] = [];
      for (let i = 0; i < samples; i++) {
        const order = i % 2 === 0 ? ([direct, managed] as const) : ([managed, direct] as const);
        for (const call of order) {
          const start = process.hrtime.bigint();
          await call();
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          (call === direct ? directTimes : managedTimes).push(ms);
        }
      }
      const directSummary = summarize(directTimes);
      const managedSummary = summarize(managedTimes);
      const overhead = managedSummary.median - directSummary.median;
      const baseline = { name: "direct SDK Client.callTool p50", value: round(directSummary.median, 3), unit: "ms" };
      return [
        {
          name: "McpManager.callTool p50 (server-everything echo, stdio)",
          value: round(managedSummary.median, 3),
          unit: "ms",
          stats: { p95: round(managedSummary.p95, 3), "direct p95": round(directSummary.p95, 3), samples },
          baseline,
        },
        {
          name: "manager overhead per call (p50 manager − p50 direct)",
          value: round(overhead, 3),
          unit: "ms",
          baseline,
          target: "≤ 1 ms (the bridge's budget per call, of which the manager is a part)",
          pass: overhead <= 1,
        },
      ];
    } finally {
      await client.close();
      await manager.close();
      fs.rmSync(catalogDir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
