import os from "node:os";
import type { ErrorCode, SandboxBackend } from "@thinktank/core";
import { diagnoseBwrapFailure } from "../launch/unavailable.js";
import type { SandboxLimitName, SandboxLimits, SandboxResult } from "../sandbox-types.js";
import type { WorkerOutcome } from "../worker/sandbox-worker.js";

export interface ClassifyContext {
  readonly backend: SandboxBackend;
  readonly limits: SandboxLimits;
  readonly timeoutMs: number;
  readonly warm: boolean;
}

const signalNames = new Map(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));

/** What a program prints when a limit stopped it (interpreter messages, errno texts). */
// V8 words its heap death three ways: "JavaScript heap out of memory" (Node), "Fatal JavaScript out
// of memory" and "Fatal process out of memory" (Deno, and Pyodide in it, as the heap cap is met).
const memoryPattern = /JavaScript heap out of memory|Fatal (?:JavaScript|process) out of memory|Reached heap limit|Array buffer allocation failed|\bMemoryError\b|Cannot allocate memory|std::bad_alloc|Out of memory/;
const fileSizePattern = /File too large|\bEFBIG\b/;
const processPattern = /Cannot fork|fork: (?:retry|Resource temporarily unavailable)|\[Errno 11\] Resource temporarily unavailable|spawn EAGAIN|can't start new thread|pthread_create: Resource temporarily unavailable/;

/**
 * Turns what happened to a worker into the run's result: the exit code and signal, which limit (if
 * any) stopped it, and an error with a code when the run did not complete normally.
 */
export function classifyOutcome(outcome: WorkerOutcome, context: ClassifyContext): SandboxResult {
  const stderrText = outcome.stderr.text();
  const signal = signalOf(outcome, context.backend);
  const base = {
    exitCode: outcome.timedOut || outcome.cancelled || outcome.outputLimitHit ? null : outcome.exitCode,
    ...(signal ? { signal } : {}),
    stdout: outcome.stdout.text(outcome.outputLimitHit ? "output limit reached, program stopped" : undefined),
    stderr: outcome.stderr.text(outcome.outputLimitHit ? "output limit reached, program stopped" : undefined),
    stdoutTruncated: outcome.stdout.truncated,
    stderrTruncated: outcome.stderr.truncated,
    timedOut: outcome.timedOut,
    durationMs: Math.round(outcome.durationMs * 100) / 100,
    warm: context.warm,
  };
  const fail = (code: ErrorCode, message: string, limit?: SandboxLimitName): SandboxResult => ({ ...base, ...(limit ? { limit } : {}), error: { code, message } });
  const { limits } = context;

  if (outcome.spawnError) return fail("SANDBOX_UNAVAILABLE", `The sandbox could not be started: ${outcome.spawnError}`);
  if (outcome.cancelled) return fail("CANCELLED", "The run was cancelled: the program was stopped, with every process it started.");
  if (outcome.timedOut) {
    return fail("SANDBOX_TIMEOUT", `The program ran longer than ${context.timeoutMs.toLocaleString("en-US")} ms and was stopped, with every process it started.`, "wall_time");
  }
  if (outcome.outputLimitHit) {
    return fail("SANDBOX_LIMIT_EXCEEDED", `The program printed more than ${limits.killAfterOutputBytes.toLocaleString("en-US")} bytes and was stopped.`, "output");
  }
  if (outcome.oomKills > 0) {
    // Reported even when the program went on and exited 0 (a shell's `wait` does): part of it was killed.
    const killed = outcome.oomKills === 1 ? "a process of it" : `${outcome.oomKills} of its processes`;
    return fail("SANDBOX_LIMIT_EXCEEDED", `The program ran out of memory (limit ${limits.memoryMb} MiB per execution, all its processes together): the kernel killed ${killed}.`, "memory");
  }
  if (!outcome.started && outcome.exitCode !== 0) {
    const diagnosis = diagnoseBwrapFailure(stderrText);
    if (diagnosis) return fail("SANDBOX_UNAVAILABLE", diagnosis);
    return fail("SANDBOX_FAILED", `The sandboxed interpreter did not start (exit code ${outcome.exitCode ?? signal}): ${stderrText.trim().split("\n")[0] ?? ""}`);
  }
  if (outcome.exitCode === 0) return base;

  if (signal === "SIGXCPU") return fail("SANDBOX_LIMIT_EXCEEDED", `The program used more than ${limits.cpuSeconds} s of CPU time and was stopped.`, "cpu");
  if (signal === "SIGXFSZ" || fileSizePattern.test(stderrText)) {
    return fail("SANDBOX_LIMIT_EXCEEDED", `The program tried to write a file larger than ${limits.maxFileMb} MiB.`, "file_size");
  }
  if (memoryPattern.test(stderrText)) return fail("SANDBOX_LIMIT_EXCEEDED", `The program ran out of memory (limit ${limits.memoryMb} MiB per process).`, "memory");
  if (processPattern.test(stderrText)) {
    return fail("SANDBOX_LIMIT_EXCEEDED", `The program tried to start more than ${limits.maxProcesses} processes or threads.`, "processes");
  }
  return base;
}

/**
 * The signal that ended the program. The local backend sees it directly; bubblewrap reports a
 * signal death inside its pid namespace as exit code 128 + n.
 */
function signalOf(outcome: WorkerOutcome, backend: SandboxBackend): string | undefined {
  if (outcome.signal) return outcome.signal;
  if (backend === "bubblewrap" && outcome.started && outcome.exitCode !== null && outcome.exitCode > 128 && outcome.exitCode < 128 + 65) {
    return signalNames.get(outcome.exitCode - 128);
  }
  return undefined;
}
