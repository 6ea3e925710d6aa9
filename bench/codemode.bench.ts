// Code execution with MCP (issue 4): tool-definition tokens per request in direct vs code mode,
// tokens returned to the model by a data-heavy workflow, the execute_code round trip beside a plain
// tsx subprocess, and the bridge's overhead per MCP call beside direct SDK calls. Each figure is
// measured beside its baseline in the same run.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describeToolSurface, type ExecuteCodeResult } from "@thinktank/codemode";
import { countTokens, readCatalog, type CatalogServer } from "@thinktank/mcp";
import { referenceServerScript } from "@thinktank/mcp/testing";
import { growCatalog, openCodeModeBench, type CodeModeBench } from "./codemode-setup.js";
import { round, summarize } from "./harness.js";
import type { Benchmark, BenchContext, Measurement } from "./harness.js";

const surfaceSettings = { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300, defaultLimit: 10, maxLimit: 50, maxStdoutBytes: 20000, autoThresholdTokens: 4000 };
const costs = (servers: readonly CatalogServer[]) => describeToolSurface(servers, { ...surfaceSettings, mode: "code" });

function tokenFigures(context: BenchContext, bench: CodeModeBench): Measurement[] {
  const results: Measurement[] = [];
  const reference = costs(bench.codeMode.catalog.catalog());
  results.push({
    name: `code mode, reference servers (${reference.toolCount} tools)`,
    value: reference.costs.code,
    unit: "tokens",
    baseline: { name: "direct mode", value: reference.costs.direct, unit: "tokens" },
    stats: { fewer: `${round((1 - reference.costs.code / reference.costs.direct) * 100, 1)}%` },
    target: "≤ 1,000 tokens",
    pass: reference.costs.code <= 1000,
  });
  if (!context.corpus) {
    context.log("corpus absent: catalog token figures skipped");
    return results;
  }
  const { servers } = readCatalog(path.join(context.corpus, "mcp-tools"));
  const corpus = costs(servers);
  const fewer = 1 - corpus.costs.code / corpus.costs.direct;
  results.push({
    name: `code mode, whole corpus catalog (${corpus.toolCount.toLocaleString("en-US")} tools)`,
    value: corpus.costs.code,
    unit: "tokens",
    baseline: { name: "direct mode", value: corpus.costs.direct, unit: "tokens" },
    stats: { fewer: `${round(fewer * 100, 2)}%` },
    target: "≤ 1,000 tokens and ≥ 99% fewer than direct",
    pass: corpus.costs.code <= 1000 && fewer >= 0.99,
  });
  const sizes = [10, 100, 1000, 2136, 10_000];
  const codeCosts: number[] = [];
  for (const size of sizes) {
    const grown = costs(growCatalog(servers, size));
    codeCosts.push(grown.costs.code);
    results.push({
      name: `code mode, ${size.toLocaleString("en-US")} tools (grown from the corpus)`,
      value: grown.costs.code,
      unit: "tokens",
      baseline: { name: "direct mode", value: grown.costs.direct, unit: "tokens" },
      target: "≤ 1,000 tokens",
      pass: grown.costs.code <= 1000,
    });
  }
  const spread = Math.max(...codeCosts) - Math.min(...codeCosts);
  results.push({ name: "code mode spread from 10 to 10,000 tools (max − min)", value: spread, unit: "tokens", target: "flat (0)", pass: spread === 0 });
  return results;
}

async function dataFlow(bench: CodeModeBench): Promise<Measurement> {
  const file = path.join(bench.filesDir, "sales.txt");
  const lines: string[] = [];
  for (let i = 0; fs.existsSync(file) === false && lines.join("\n").length < 100 * 1024; i++) lines.push(`order ${i}: customer=c${i % 97} region=${["north", "south", "east", "west"][i % 4]} amount=${(i * 37) % 1000}.${i % 100}`);
  fs.writeFileSync(file, lines.join("\n"));
  const bytes = fs.statSync(file).size;
  // Direct mode: the model receives each tool's whole result.
  const textOf = (result: unknown): string => ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((block) => block.text ?? JSON.stringify(block)).join("\n");
  const read = await bench.manager.callTool("filesystem", "read_text_file", { path: file });
  const summary = { name: "sales-summary-direct", entityType: "report", observations: [`${lines.length} orders`] };
  const created = await bench.manager.callTool("memory", "create_entities", { entities: [summary] });
  const direct = countTokens(textOf(read)) + countTokens(textOf(created));
  // Code mode: the model receives execute_code's result, with what the program printed.
  const code = `
import { readTextFile } from "servers/filesystem";
import { createEntities } from "servers/memory";
const { content } = await readTextFile({ path: ${JSON.stringify(file)} });
const orders = content.split("\\n").map((line) => ({ region: /region=(\\w+)/.exec(line)?.[1] ?? "?", amount: Number(/amount=([\\d.]+)/.exec(line)?.[1] ?? 0) }));
const byRegion: Record<string, number> = {};
for (const order of orders) byRegion[order.region] = (byRegion[order.region] ?? 0) + order.amount;
const observations = Object.entries(byRegion).map(([region, total]) => region + ": " + total.toFixed(2));
await createEntities({ entities: [{ name: "sales-summary", entityType: "report", observations }] });
console.log(orders.length + " orders; totals by region stored: " + observations.join(", "));
`;
  const result = await bench.codeMode.executeCode({ code }, { threadId: "bench-data-flow" });
  if (result.exit_code !== 0) throw new Error(`the data-flow program failed: ${JSON.stringify(result)}`);
  const codeTokens = countTokens(JSON.stringify(result));
  const share = codeTokens / direct;
  return {
    name: `tokens returned to the model: read a ${Math.round(bytes / 1024)} KB file, store a summary (code mode)`,
    value: codeTokens,
    unit: "tokens",
    baseline: { name: "direct mode (both tool results)", value: direct, unit: "tokens" },
    stats: { share: `${round(share * 100, 2)}%` },
    target: "≤ 1% of direct mode",
    pass: share <= 0.01,
  };
}

function timeProcess(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => (status === 0 && output.trim() === "1" ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`${command} failed: ${status}`))));
  });
}

async function roundTrip(context: BenchContext, bench: CodeModeBench): Promise<Measurement> {
  const place = { threadId: "bench-round-trip" };
  const tsxFile = path.join(bench.root, "one.ts");
  fs.writeFileSync(tsxFile, "console.log(1);\n");
  const tsx = path.join(context.root, "node_modules", ".bin", "tsx");
  const executeTimes: number[] = [];
  const tsxTimes: number[] = [];
  let warm = 0;
  const samples = 40;
  context.log(`execute_code("console.log(1)") round trips: ${samples}, beside tsx subprocesses`);
  for (let i = 0; i < samples + 3; i++) {
    // The pool refills between runs, as it would while the model thinks.
    await bench.codeMode.prewarm(place);
    const started = process.hrtime.bigint();
    const result: ExecuteCodeResult = await bench.codeMode.executeCode({ code: "console.log(1)" }, place);
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.stdout !== "1\n") throw new Error(`execute_code failed: ${JSON.stringify(result)}`);
    if (i < 3) continue;
    executeTimes.push(elapsed);
    if (i % 2 === 0) tsxTimes.push(await timeProcess(tsx, [tsxFile]));
    warm += 1;
  }
  const execute = summarize(executeTimes);
  const baseline = summarize(tsxTimes);
  return {
    name: "execute_code round trip, console.log(1) in TypeScript (bubblewrap, warm pool)",
    value: round(execute.median),
    unit: "ms",
    stats: { p95: round(execute.p95), min: round(execute.min), samples: execute.samples, "tsx p95": round(baseline.p95) },
    baseline: { name: "plain tsx subprocess", value: round(baseline.median), unit: "ms" },
    target: "p50 ≤ 30 ms",
    pass: execute.median <= 30 && warm > 0,
  };
}

async function bridgeOverhead(context: BenchContext, bench: CodeModeBench): Promise<Measurement[]> {
  const calls = 300;
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [referenceServerScript("server-everything")], env: { PATH: process.env.PATH ?? "" }, stderr: "ignore" }));
  try {
    const directTimes: number[] = [];
    const direct = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const started = process.hrtime.bigint();
        await client.callTool({ name: "echo", arguments: { message: "benchmark" } });
        directTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    };
    for (let i = 0; i < 50; i++) await client.callTool({ name: "echo", arguments: { message: "warm-up" } });
    await direct(calls / 2);
    context.log(`${calls} echo calls from a sandboxed program through the bridge`);
    const code = `
import { echo } from "servers/everything";
for (let i = 0; i < 50; i++) await echo({ message: "warm-up" });
const times: number[] = [];
for (let i = 0; i < ${calls}; i++) {
  const started = performance.now();
  await echo({ message: "benchmark" });
  times.push(performance.now() - started);
}
console.log(JSON.stringify(times.map((t) => Math.round(t * 1000) / 1000)));
`;
    const result = await bench.codeMode.executeCode({ code, timeout: 120 }, { threadId: "bench-bridge" });
    if (result.exit_code !== 0) throw new Error(`the bridge program failed: ${result.stderr} ${JSON.stringify(result.error)}`);
    await direct(calls / 2);
    const bridged = summarize(JSON.parse(result.stdout) as number[]);
    const plain = summarize(directTimes);
    const overhead = bridged.median - plain.median;
    const baseline = { name: "direct SDK Client.callTool p50", value: round(plain.median, 3), unit: "ms" };
    return [
      { name: "MCP call from sandboxed code through the bridge, p50 (server-everything echo)", value: round(bridged.median, 3), unit: "ms", stats: { p95: round(bridged.p95, 3), "direct p95": round(plain.p95, 3), samples: calls }, baseline },
      { name: "bridge overhead per call (p50 bridged − p50 direct)", value: round(overhead, 3), unit: "ms", baseline, target: "≤ 1 ms", pass: overhead <= 1 },
    ];
  } finally {
    await client.close();
  }
}

const benchmark: Benchmark = {
  title: "Code execution with MCP: tokens, data flow, round trip, bridge",
  issue: 4,
  async run(context) {
    context.log("starting the reference servers and the sandbox");
    const bench = await openCodeModeBench();
    try {
      const results = tokenFigures(context, bench);
      results.push(await dataFlow(bench));
      results.push(await roundTrip(context, bench));
      results.push(...(await bridgeOverhead(context, bench)));
      return results;
    } finally {
      await bench.close();
    }
  },
};

export default benchmark;
