import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { childLines, type ChildLines } from "./child-output.js";
import { childNodeOptions, nodeArgsFor } from "./child-runtime.js";
import { repositoryRoot } from "./corpus.js";

// The agent server's entry point (a path, not an import: this package sits below the apps).
const startScript = path.join(repositoryRoot(), "apps/agent/src/start.ts");

export interface AgentProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** The same output line by line, with a wait for a line (already printed or still to come). */
  readonly lines: ChildLines;
  /** SIGTERM, then SIGKILL after a grace period; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The environment a test process gets: PATH and HOME only, plus what the test sets (no host secrets),
 * and the "development" export condition when the test run's children run the sources (childNodeOptions).
 */
export function testEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", NODE_OPTIONS: childNodeOptions(), ...extra };
}

/** Runs apps/agent/src/start.ts (its build when current: nodeArgsFor) as a child process and waits for its "listening" line. */
export async function startAgentProcess(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<AgentProcess> {
  const child = spawn(process.execPath, nodeArgsFor(startScript), { env: testEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const lines = childLines(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent server did not start in time:\n${output}`)), options.timeoutMs ?? 150_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agent server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    lines,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

/** Runs start.ts expecting it to fail; resolves with its exit code and output. */
export function runAgentProcessToExit(env: Record<string, string>, timeoutMs = 150_000): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, nodeArgsFor(startScript), { env: testEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
