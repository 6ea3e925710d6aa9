// Sandbox round trips per backend: a one-line program through the warm pool and from a cold start, on
// bubblewrap (where it runs) and on deno (TypeScript natively, Python in Pyodide), beside plain
// subprocesses (tsx, node -e, python3 -c) measured in the same run.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import { createSandboxExecutor } from "@thinktank/sandbox";
import type { SandboxExecutor, SandboxLanguage } from "@thinktank/sandbox";
import { makeTempDir } from "@thinktank/testing";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement, Summary } from "./harness.js";

const warmSamples = 120;
const coldSamples = 30;
const target = 30;
/** Pyodide's warm target: the interpreter is loaded before the program arrives. */
const pyodideTarget = 100;

/** Wall time of one subprocess, from spawn to exit. */
function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && output.trim() === "1" ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`${command} failed: ${code} ${output}`))));
  });
}

async function sampleProcess(samples: number, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Summary> {
  await timeProcess(command, args, env);
  const values: number[] = [];
  for (let i = 0; i < samples; i++) values.push(await timeProcess(command, args, env));
  return summarize(values);
}

/** Round trips through the executor; with `waitForPool`, the pool is refilled (untimed) before each run, as the model's think time would. */
async function sampleSandbox(executor: SandboxExecutor, language: SandboxLanguage, source: string, workspaceDir: string, samples: number, waitForPool: boolean): Promise<{ summary: Summary; warm: number }> {
  const values: number[] = [];
  let warm = 0;
  for (let i = 0; i < samples + 3; i++) {
    if (waitForPool) await executor.prewarm({ language, workspaceDir });
    const started = process.hrtime.bigint();
    const result = await executor.run({ language, source, workspaceDir });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.error || result.stdout !== "1\n") throw new Error(`sandbox run failed: ${JSON.stringify(result)}`);
    if (i < 3) continue; // warm-up
    values.push(elapsed);
    if (result.warm) warm++;
  }
  return { summary: summarize(values), warm };
}

function configWith(base: Config, warmPoolSize: number, backend: "bubblewrap" | "deno" = "bubblewrap"): Config {
  return { ...base, sandbox: { ...base.sandbox, backend, warm_pool_size: warmPoolSize } };
}

const measure = (name: string, summary: Summary, baseline: { name: string; summary: Summary }, extra: Partial<Measurement> = {}): Measurement => ({
  name,
  value: round(summary.median),
  unit: "ms",
  stats: { p95: round(summary.p95), min: round(summary.min), samples: summary.samples },
  baseline: { name: baseline.name, value: round(baseline.summary.median), unit: "ms" },
  ...extra,
});

const benchmark: Benchmark = {
  title: "Sandbox round trip (execute a one-line program with isolation on), per backend",
  issue: 4,
  async run(context) {
    const temp = makeTempDir("thinktank-bench-sandbox-");
    fs.chmodSync(temp.dir, 0o755);
    const base = loadConfig({ cwd: temp.dir, env: {} });
    const searchPath = process.env.PATH;
    const warmExecutor = createSandboxExecutor({ config: configWith(base, 1), searchPath });
    const coldExecutor = createSandboxExecutor({ config: configWith(base, 0), searchPath });
    const denoWarm = createSandboxExecutor({ config: configWith(base, 1, "deno"), searchPath });
    const denoCold = createSandboxExecutor({ config: configWith(base, 0, "deno"), searchPath });
    const workspace = warmExecutor.workspaceFor("bench");
    const denoWorkspace = denoWarm.workspaceFor("bench-deno");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const tsx = path.join(context.root, "node_modules", ".bin", "tsx");
    try {
      const denoCheck = await denoWarm.check();
      if (!denoCheck.ok) throw new Error(`the deno sandbox cannot run here: ${denoCheck.summary}`);
      context.log("deno: TypeScript warm pool and cold start; Python in Pyodide warm and cold");
      const denoJs = await sampleSandbox(denoWarm, "javascript", "console.log(1)", denoWorkspace, warmSamples, true);
      const denoJsCold = await sampleSandbox(denoCold, "javascript", "console.log(1)", denoWorkspace, coldSamples, false);
      const denoPy = await sampleSandbox(denoWarm, "python", "print(1)", denoWorkspace, 40, true);
      const denoPyCold = await sampleSandbox(denoCold, "python", "print(1)", denoWorkspace, 5, false);
      const nodeFirst = await sampleProcess(warmSamples, process.execPath, ["-e", "console.log(1)"], env);
      const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { env, encoding: "utf8" }).trim();
      const pythonFirst = await sampleProcess(warmSamples, python, ["-c", "print(1)"], env);
      const denoResults = [
        measure("console.log(1) in TypeScript, deno, warm pool", denoJs.summary, { name: "plain node -e subprocess (no isolation)", summary: nodeFirst }, { target: `p50 <= ${target} ms`, pass: denoJs.summary.median <= target, stats: { p95: round(denoJs.summary.p95), min: round(denoJs.summary.min), samples: denoJs.summary.samples, "warm runs": denoJs.warm } }),
        measure("console.log(1) in TypeScript, deno, cold start (no pool)", denoJsCold.summary, { name: "plain node -e subprocess (no isolation)", summary: nodeFirst }),
        measure("print(1), deno + Pyodide, warm pool (Pyodide loaded before the program)", denoPy.summary, { name: "plain python3 -c subprocess (no isolation)", summary: pythonFirst }, { target: `p50 <= ${pyodideTarget} ms`, pass: denoPy.summary.median <= pyodideTarget, stats: { p95: round(denoPy.summary.p95), min: round(denoPy.summary.min), samples: denoPy.summary.samples, "warm runs": denoPy.warm } }),
        measure("print(1), deno + Pyodide, cold start (loads Pyodide)", denoPyCold.summary, { name: "plain python3 -c subprocess (no isolation)", summary: pythonFirst }),
      ];
      const check = await warmExecutor.check();
      if (!check.ok) {
        context.log(`bubblewrap cannot run here, its figures are left out: ${check.summary}`);
        return denoResults;
      }
      context.log("javascript: warm pool");
      const warmJs = await sampleSandbox(warmExecutor, "javascript", "console.log(1)", workspace, warmSamples, true);
      context.log("javascript: warm pool, back to back (no wait for the refill)");
      const backToBack = await sampleSandbox(warmExecutor, "javascript", "console.log(1)", workspace, coldSamples, false);
      context.log("javascript: cold bubblewrap start");
      const coldJs = await sampleSandbox(coldExecutor, "javascript", "console.log(1)", workspace, coldSamples, false);
      context.log("baselines: tsx, node -e");
      const tsxRun = await sampleProcess(coldSamples, tsx, ["-e", "console.log(1)"], env);
      const nodeRun = await sampleProcess(warmSamples, process.execPath, ["-e", "console.log(1)"], env);
      context.log("python: warm pool, cold start, python3 -c");
      const warmPy = await sampleSandbox(warmExecutor, "python", "print(1)", workspace, warmSamples, true);
      const coldPy = await sampleSandbox(coldExecutor, "python", "print(1)", workspace, coldSamples, false);
      // The real binary, not a launcher shim (pyenv's costs ~100 ms on its own).
      const pythonRun = await sampleProcess(warmSamples, python, ["-c", "print(1)"], env);

      const tsxBaseline = { name: "plain tsx subprocess", summary: tsxRun };
      const nodeBaseline = { name: "plain node -e subprocess (no isolation)", summary: nodeRun };
      const pythonBaseline = { name: "plain python3 -c subprocess (no isolation)", summary: pythonRun };
      return [
        measure("console.log(1), bubblewrap, warm pool", warmJs.summary, tsxBaseline, { target: `p50 <= ${target} ms`, pass: warmJs.summary.median <= target, stats: { p95: round(warmJs.summary.p95), min: round(warmJs.summary.min), samples: warmJs.summary.samples, "warm runs": warmJs.warm } }),
        measure("console.log(1), bubblewrap, warm pool", warmJs.summary, nodeBaseline),
        measure("console.log(1), bubblewrap, warm pool, back to back (refill not awaited)", backToBack.summary, nodeBaseline, { stats: { p95: round(backToBack.summary.p95), samples: backToBack.summary.samples, "warm runs": backToBack.warm } }),
        measure("console.log(1), bubblewrap, cold start (no pool)", coldJs.summary, nodeBaseline),
        measure("print(1), bubblewrap, warm pool", warmPy.summary, pythonBaseline, { target: `p50 <= ${target} ms`, pass: warmPy.summary.median <= target, stats: { p95: round(warmPy.summary.p95), min: round(warmPy.summary.min), samples: warmPy.summary.samples, "warm runs": warmPy.warm } }),
        measure("print(1), bubblewrap, cold start (no pool)", coldPy.summary, pythonBaseline),
        ...denoResults,
      ];
    } finally {
      await Promise.all([warmExecutor.close(), coldExecutor.close(), denoWarm.close(), denoCold.close()]);
      temp.cleanup();
    }
  },
};

export default benchmark;
