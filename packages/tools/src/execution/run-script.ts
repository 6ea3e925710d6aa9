import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { killProcessGroup, killProcessTree, type HostConfinement } from "@thinktank/core";

export interface RunScriptOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The whole environment of the process (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
  /** Written to standard input, which is then closed. */
  readonly input: string;
  readonly timeoutMs: number;
  /** Aborting kills the process tree and answers `cancelled`. */
  readonly signal?: AbortSignal;
  /** Standard output beyond this kills the process tree. @default 8 MiB */
  readonly maxStdoutBytes?: number;
  /** How much of the end of standard error is kept. @default 4096 */
  readonly stderrTailBytes?: number;
  /** After the process exits, how long to wait for its output pipes to close (a descendant that escaped its group may hold them). @default 1000 */
  readonly drainMs?: number;
  /** Confines the process on the host (its own pid namespace, the data folder hidden): every run goes through it. */
  readonly confinement: HostConfinement;
}

/** How a script run ended. Never thrown: every ending is a value. */
export type ScriptOutcome =
  | { readonly kind: "exited"; readonly exitCode: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderrTail: string }
  | { readonly kind: "timeout"; readonly stderrTail: string }
  | { readonly kind: "cancelled"; readonly stderrTail: string }
  | { readonly kind: "output-too-large"; readonly limit: number; readonly stderrTail: string }
  | { readonly kind: "spawn-failed"; readonly message: string };

/**
 * Runs one script process, confined on the host (`options.confinement`: in a pid namespace of its
 * own where the host offers one, so the service's processes are invisible to it and the kernel
 * kills everything left in the namespace when the script's first process ends): JSON in on stdin,
 * output collected from stdout, the tail of stderr kept. The process starts in a process group of
 * its own; a timeout, a cancel, too much output, or simply its exit kills that whole group (and any
 * descendant found through /proc), so nothing the script started outlives the call.
 */
export async function runScript(options: RunScriptOptions): Promise<ScriptOutcome> {
  // Found once per process (a probe), without blocking the event loop; confine() then uses it.
  await options.confinement.detect();
  const maxStdout = options.maxStdoutBytes ?? 8 * 1024 * 1024;
  const tailBytes = options.stderrTailBytes ?? 4096;
  return new Promise((resolve) => {
    const line = options.confinement.confine({ command: options.command, args: options.args, env: options.env, cwd: options.cwd });
    if (!line.ok) {
      resolve({ kind: "spawn-failed", message: line.error.message });
      return;
    }
    let child: ChildProcess;
    try {
      child = spawn(line.command, [...line.args], { cwd: line.cwd, env: line.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      resolve({ kind: "spawn-failed", message: (error as Error).message });
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrTail = Buffer.alloc(0);
    let stopped: "timeout" | "cancelled" | "output-too-large" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const killTree = (): void => {
      if (child.pid !== undefined) killProcessTree(child.pid);
    };
    const stop = (reason: "timeout" | "cancelled" | "output-too-large"): void => {
      if (stopped || exit) return;
      stopped = reason;
      killTree();
    };
    const onAbort = (): void => stop("cancelled");
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);

    const finish = (outcome: ScriptOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const tail = (): string => stderrTail.toString("utf8").replace(/^\uFFFD+/, "");
    const settle = (): void => {
      if (stopped === "output-too-large") finish({ kind: stopped, limit: maxStdout, stderrTail: tail() });
      else if (stopped) finish({ kind: stopped, stderrTail: tail() });
      else if (exit) finish({ kind: "exited", exitCode: exit.code, signal: exit.signal, stdout: Buffer.concat(stdout).toString("utf8"), stderrTail: tail() });
    };

    child.stdout?.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdout) stop("output-too-large");
      else stdout.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = Buffer.concat([stderrTail, chunk]);
      if (stderrTail.length > tailBytes) stderrTail = stderrTail.subarray(stderrTail.length - tailBytes);
    });
    child.on("error", (error) => {
      if (child.pid === undefined) finish({ kind: "spawn-failed", message: error.message });
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Whatever the script left running in its group dies with it. (The group id cannot be reused
      // while members remain, so this never hits an unrelated process.)
      if (child.pid !== undefined) killProcessGroup(child.pid);
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle();
      }, options.drainMs ?? 1000);
    });
    child.on("close", settle);

    // A script that never reads its input must not fail the call.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input);
    if (options.signal?.aborted) stop("cancelled");
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
