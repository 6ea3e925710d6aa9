// Script tools of an untrusted skill run in the sandbox: a whole tool call (ToolExecutor.run: arguments
// checked, the script run, its JSON checked) of the same python and node script, sandboxed on a warm
// bubblewrap worker, beside the host call of the same script in the same run, samples interleaved:
// the host call as the service makes it today (confined: HostConfinement as config gives it) and
// without confinement (the host call before issue 24).
import fs from "node:fs";
import path from "node:path";
import { HostConfinement, loadConfig } from "@thinktank/core";
import { createSandboxExecutor, createSandboxScriptRunner } from "@thinktank/sandbox";
import { makeTempDir, missingReason } from "@thinktank/testing";
import { ToolExecutor } from "@thinktank/tools";
import type { RunnableTool } from "@thinktank/tools";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement, Summary } from "./harness.js";

const samples = 60;
const warmup = 5;
const targetMs = 15;
const sandboxDir = "/mnt/skills/custom/bench";

const scripts = {
  python: { file: "count.py", source: 'import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"words": len(args["text"].split())}))\n' },
  node: { file: "count.js", source: 'const args = JSON.parse(require("node:fs").readFileSync(0, "utf8"));\nconsole.log(JSON.stringify({ words: args.text.split(/\\s+/).filter(Boolean).length }));\n' },
} as const;

const benchmark: Benchmark = {
  title: "Untrusted script tools: a sandboxed tool call against the host call of the same script",
  issue: 24,
  async run(context) {
    const missing = missingReason("bubblewrap");
    if (missing) {
      context.log(`bubblewrap is missing (${missing}): nothing measured`);
      return [];
    }
    const temp = makeTempDir("tt-bench-sandboxed-tools-");
    fs.chmodSync(temp.dir, 0o755);
    const loaded = loadConfig({ cwd: temp.dir, env: {} });
    const config = { ...loaded, sandbox: { ...loaded.sandbox, backend: "bubblewrap" as const, warm_pool_size: 1, workspaces_dir: path.join(temp.dir, "workspaces") } };
    const searchPath = process.env.PATH ?? "";
    const executor = createSandboxExecutor({ config, searchPath });
    const workRoot = path.join(config.sandbox.workspaces_dir, ".script-runs");
    const skillDir = path.join(temp.dir, "skill");
    fs.mkdirSync(path.join(skillDir, "scripts"), { recursive: true });
    const sandboxed = new ToolExecutor({ searchPath, sandboxRunner: createSandboxScriptRunner(executor, { workRoot }) });
    const hostConfinement = new HostConfinement({ searchPath });
    const confined = new ToolExecutor({ searchPath, workRoot: temp.dir, hostConfinement });
    const unconfined = new ToolExecutor({ searchPath, workRoot: temp.dir, hostConfinement: new HostConfinement({ searchPath, mechanisms: [] }) });
    const results: Measurement[] = [];
    try {
      for (const runtime of ["python", "node"] as const) {
        const { file, source } = scripts[runtime];
        fs.writeFileSync(path.join(skillDir, "scripts", file), source);
        const tool: RunnableTool = {
          name: `count_${runtime}`,
          description: "Count words",
          input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
          output_schema: { type: "object", properties: { words: { type: "integer" } }, required: ["words"] },
          runtime,
          script: file,
          timeout: 30,
          parallel_capable: false,
          enabled: true,
          scriptPath: path.join(fs.realpathSync(skillDir), "scripts", file),
          trusted: false,
          folder: { hostDir: skillDir, sandboxDir },
        };
        const language = runtime === "node" ? "javascript" : "python";
        const warmRequest = { language, workspaceDir: workRoot, freshWorkspace: true, mounts: [{ hostPath: skillDir, sandboxPath: sandboxDir }] } as const;
        const call = async (executorOf: ToolExecutor, trusted: boolean): Promise<number> => {
          const started = process.hrtime.bigint();
          const response = await executorOf.run({ ...tool, trusted }, { text: "one two three" });
          const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
          if (response.status !== "success" || (response.data as { words: number }).words !== 3) throw new Error(`${tool.name}: ${JSON.stringify(response)}`);
          return elapsed;
        };
        // Warm: the pool has its worker ready (refilled, untimed, before each call, as the model's think time would).
        const sandboxedCall = async (): Promise<number> => {
          await executor.prewarm(warmRequest);
          return call(sandboxed, false);
        };
        context.log(`${runtime}: ${warmup} warm-up rounds, then ${samples} calls of each kind, interleaved`);
        for (let i = 0; i < warmup; i++) {
          await sandboxedCall();
          await call(confined, true);
          await call(unconfined, true);
        }
        const times: Record<"sandboxed" | "confined" | "unconfined", number[]> = { sandboxed: [], confined: [], unconfined: [] };
        for (let i = 0; i < samples; i++) {
          const order = (["sandboxed", "confined", "unconfined"] as const).map((kind, index) => ({ kind, index: (index + i) % 3 })).sort((a, b) => a.index - b.index);
          for (const { kind } of order) times[kind].push(kind === "sandboxed" ? await sandboxedCall() : await call(kind === "confined" ? confined : unconfined, true));
        }
        const [ours, today, before] = [summarize(times.sandboxed), summarize(times.confined), summarize(times.unconfined)];
        const { isolation, mechanism } = hostConfinement.info;
        const confinement = mechanism ? `${isolation}, ${mechanism}` : isolation;
        const row = (name: string, summary: Summary, baseline: { name: string; summary: Summary }, extra: Partial<Measurement> = {}): Measurement => ({
          name,
          value: round(summary.median),
          unit: "ms",
          stats: { p95: round(summary.p95), "baseline p95": round(baseline.summary.p95), samples },
          baseline: { name: baseline.name, value: round(baseline.summary.median), unit: "ms" },
          ...extra,
        });
        const unconfinedBaseline = { name: `host call, unconfined (before issue 24), p50`, summary: before };
        results.push(row(`${runtime}: sandboxed tool call (bubblewrap, warm), p50`, ours, unconfinedBaseline));
        results.push({
          ...row(`${runtime}: sandboxed − unconfined host call (p50 − p50)`, { ...ours, median: ours.median - before.median, p95: ours.p95 - before.p95 }, unconfinedBaseline),
          target: `≤ +${targetMs} ms p50 (issue 24)`,
          pass: ours.median - before.median <= targetMs,
        });
        results.push(row(`${runtime}: sandboxed − host call as the service makes it today (p50 − p50)`, { ...ours, median: ours.median - today.median, p95: ours.p95 - today.p95 }, { name: `host call, confined (${confinement}), p50`, summary: today }));
      }
      return results;
    } finally {
      await executor.close();
      temp.cleanup();
    }
  },
};

export default benchmark;
