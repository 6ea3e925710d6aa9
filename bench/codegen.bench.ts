// Code generation: the whole corpus catalog (85 servers, 2,136 tools) to TypeScript and Python wrappers.
import fs from "node:fs";
import path from "node:path";
import { buildCodeApiIndex, generateCodeApi, renderPythonTool, renderTypeScriptTool } from "@thinktank/codegen";
import type { CodegenServer } from "@thinktank/codegen";
import { makeTempDir } from "@thinktank/testing";
import { round, summarize, type Benchmark, type Measurement } from "./harness.js";

function readCorpus(corpus: string): CodegenServer[] {
  const dir = path.join(corpus, "mcp-tools");
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".json") && file !== "index.json")
    .sort()
    .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as CodegenServer);
}

/** The baseline: writing the same files (same count, same bytes) with plain writeFileSync, no generation. */
function copyFiles(files: readonly [string, string][], target: string): void {
  for (const [relative, content] of files) {
    const file = path.join(target, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

function listFiles(root: string): [string, string][] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return [path.relative(root, file), fs.readFileSync(file, "utf8")] as [string, string];
    });
}

const benchmark: Benchmark = {
  title: "Code API generation over the corpus catalog",
  issue: 4,
  async run(context): Promise<Measurement[]> {
    if (!context.corpus) return [{ name: "corpus missing: skipped", value: 0, unit: "" }];
    const servers = readCorpus(context.corpus);
    const tools = servers.reduce((n, s) => n + s.tools.length, 0);
    const temp = makeTempDir("tt-bench-codegen-");
    try {
      const full: number[] = [];
      const cpu: number[] = [];
      const unchanged: number[] = [];
      const copies: number[] = [];
      let files: [string, string][] = [];
      for (let round_ = 0; round_ < 5; round_++) {
        const outDir = path.join(temp.dir, `out-${round_}`);
        const cpuBefore = process.cpuUsage();
        const first = await generateCodeApi({ servers, outDir });
        const cpuUsed = process.cpuUsage(cpuBefore);
        full.push(first.durationMs);
        // CPU time (user + system) is what a loaded machine cannot inflate much; wall time is the figure.
        cpu.push((cpuUsed.user + cpuUsed.system) / 1000);
        unchanged.push((await generateCodeApi({ servers, outDir })).durationMs);
        if (files.length === 0) files = listFiles(outDir);
        const start = performance.now();
        copyFiles(files, path.join(temp.dir, `copy-${round_}`));
        copies.push(performance.now() - start);
        context.log(`round ${round_ + 1}: generate ${Math.round(first.durationMs)} ms, unchanged ${Math.round(unchanged.at(-1) ?? 0)} ms, plain write ${Math.round(copies.at(-1) ?? 0)} ms`);
      }
      const index = buildCodeApiIndex(servers);
      const renders: number[] = [];
      for (let i = 0; i < 5; i++) {
        const start = performance.now();
        for (const server of servers) {
          for (const tool of server.tools) {
            const entry = index.find(server.server, tool.name);
            if (!entry) continue;
            renderTypeScriptTool(tool, entry);
            renderPythonTool(tool, entry);
          }
        }
        renders.push(performance.now() - start);
      }
      const fullStats = summarize(full);
      const copyStats = summarize(copies);
      const bytes = files.reduce((n, [, content]) => n + content.length, 0);
      return [
        {
          name: `generate from scratch: ${servers.length} servers, ${tools.toLocaleString("en-US")} tools, ${files.length.toLocaleString("en-US")} files (TypeScript + Python)`,
          value: round(fullStats.median, 0),
          unit: "ms",
          stats: { p95: round(fullStats.p95, 0), first: round(full[0] ?? 0, 0), cpu_ms: round(summarize(cpu).median, 0), samples: fullStats.samples, MB: round(bytes / 2 ** 20, 1) },
          baseline: { name: "plain writeFileSync of the same files", value: round(copyStats.median, 0), unit: "ms" },
          target: "well under a few seconds (≤ 2,000 ms)",
          pass: fullStats.median <= 2_000,
        },
        {
          name: "regenerate with no tool list changed",
          value: round(summarize(unchanged).median, 0),
          unit: "ms",
          stats: { samples: unchanged.length },
          baseline: { name: "generate from scratch", value: round(fullStats.median, 0), unit: "ms" },
          target: "≤ 200 ms",
          pass: summarize(unchanged).median <= 200,
        },
        {
          name: "render only (no I/O), per tool, both languages",
          value: round((summarize(renders).median / tools) * 1000, 0),
          unit: "µs",
          stats: { total_ms: round(summarize(renders).median, 0) },
        },
      ];
    } finally {
      temp.cleanup();
    }
  },
};

export default benchmark;
