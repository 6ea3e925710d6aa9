// Start-up of the build (dist/, plain node): `thinktank --help`, and `npm start` / `thinktank start`
// to the `[start] ready` line with the shipped config.yaml on free ports, beside `node -e 0` in the
// same run. The same from the sources through tsx (the development condition) for comparison.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { freePort } from "@thinktank/testing";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement, Summary } from "./harness.js";

const helpSamples = 21;
const startSamples = 7;
const helpTarget = 300;
const readyTarget = 2000;

/** The environment of a user's shell: none of the development condition this run may carry, no API key (loopback). */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  const options = (env.NODE_OPTIONS ?? "").replace(/--conditions[= ]development/g, "").trim();
  if (options) env.NODE_OPTIONS = options;
  else delete env.NODE_OPTIONS;
  delete env.THINKTANK_API_KEY;
  return env;
}

/** Wall milliseconds of one process from spawn to exit 0. */
function timeProcess(command: string, args: string[], cwd: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd, env: plainEnv(), stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Milliseconds from spawn to the `[start] ready` line; then a SIGINT and the wait until everything stopped. */
async function timeReady(command: string, args: string[], cwd: string): Promise<number> {
  const env = plainEnv({ GATEWAY_PORT: String(await freePort()), AGENT_PORT: String(await freePort()) });
  const started = process.hrtime.bigint();
  const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e6;
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines: string[] = [];
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} ${args.join(" ")}: no ready line in 120 s:\n${lines.join("\n")}`)), 120_000);
      readline.createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        if (line.startsWith("[start] ready:")) {
          clearTimeout(timer);
          resolve(elapsed());
        }
      });
      readline.createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
      void exited.then((code) => reject(new Error(`${command} ${args.join(" ")} exited (${code}) before ready:\n${lines.join("\n")}`)));
    });
  } finally {
    child.kill("SIGINT");
    await exited;
  }
}

async function sampleReady(samples: number, command: string, args: string[], cwd: string): Promise<Summary> {
  const values: number[] = [];
  for (let i = 0; i < samples; i++) values.push(await timeReady(command, args, cwd));
  return summarize(values);
}

const benchmark: Benchmark = {
  title: "Start-up: the compiled build with plain node",
  issue: 18,
  async run(context): Promise<Measurement[]> {
    const { root } = context;
    const bin = path.join(root, "apps/cli/bin/thinktank.js");
    context.log("building dist/ (tsc -b apps/cli; quick when it is up to date)");
    const tsc = createRequire(path.join(root, "package.json")).resolve("typescript/bin/tsc");
    spawnSync(process.execPath, [tsc, "-b", "apps/cli"], { cwd: root, stdio: "inherit" });

    context.log(`thinktank --help beside node -e 0, alternating, ${helpSamples} each`);
    timeProcess(process.execPath, [bin, "--help"], root); // warm the file cache
    const nodeTimes: number[] = [];
    const helpTimes: number[] = [];
    for (let i = 0; i < helpSamples; i++) {
      nodeTimes.push(timeProcess(process.execPath, ["-e", "0"], root));
      helpTimes.push(timeProcess(process.execPath, [bin, "--help"], root));
    }
    const node = summarize(nodeTimes);
    const help = summarize(helpTimes);
    context.log("thinktank --help from the sources through tsx, 5 samples");
    const helpFromSources = summarize(Array.from({ length: 5 }, () => timeProcess(process.execPath, ["--conditions=development", bin, "--help"], root)));

    context.log(`npm start and thinktank start to ready, shipped config.yaml, free ports, ${startSamples} each`);
    // Three processes start at once on few cores: what else the machine runs shows in these figures.
    const load = round(os.loadavg()[0] ?? 0, 1);
    const npmStart = await sampleReady(startSamples, "npm", ["start"], root);
    const binStart = await sampleReady(startSamples, process.execPath, [bin, "start"], root);
    context.log("thinktank start from the sources through tsx (npm run dev), 2 samples");
    const devStart = await sampleReady(2, process.execPath, ["--conditions=development", bin, "start"], root);
    const nodeBaseline = { name: "node -e 0", value: round(node.median, 0), unit: "ms" };
    context.log(`--help ${round(help.median, 0)} ms, npm start ready ${round(npmStart.median, 0)} ms, node -e 0 ${round(node.median, 0)} ms`);

    return [
      {
        name: "thinktank --help, p50",
        value: round(help.median, 0),
        unit: "ms",
        baseline: nodeBaseline,
        target: `p50 <= ${helpTarget} ms`,
        pass: help.median <= helpTarget,
        stats: { p95: round(help.p95, 0), samples: help.samples, "from the sources (tsx)": round(helpFromSources.median, 0) },
      },
      {
        name: "npm start to `[start] ready`, shipped config",
        value: round(npmStart.median, 0),
        unit: "ms",
        baseline: nodeBaseline,
        target: `<= ${readyTarget} ms`,
        pass: npmStart.median <= readyTarget,
        stats: { p95: round(npmStart.p95, 0), min: round(npmStart.min, 0), samples: npmStart.samples, "load average before": load },
      },
      {
        name: "thinktank start to `[start] ready`, shipped config",
        value: round(binStart.median, 0),
        unit: "ms",
        baseline: nodeBaseline,
        target: `<= ${readyTarget} ms`,
        pass: binStart.median <= readyTarget,
        stats: { p95: round(binStart.p95, 0), min: round(binStart.min, 0), samples: binStart.samples, "from the sources (tsx)": round(devStart.median, 0) },
      },
    ];
  },
};

export default benchmark;
