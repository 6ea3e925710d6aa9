import fs from "node:fs";
import type { SandboxLanguage, SandboxLimits } from "../sandbox-types.js";
import type { PlanResult } from "./launch-plan.js";

const mebibyte = 1024 * 1024;

/**
 * prlimit(1) options that set a worker's resource limits before the interpreter starts. The CPU hard
 * limit is one second above the soft one, so a program that ignores SIGXCPU is killed.
 * RLIMIT_NPROC is left out when `processes` is false (the local backend shares the host user's count).
 */
export function limitArguments(limits: SandboxLimits, options: { processes: boolean }): string[] {
  const args = [
    `--data=${limits.memoryMb * mebibyte}`,
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--fsize=${limits.maxFileMb * mebibyte}`,
    "--core=0",
  ];
  if (options.processes) args.push(`--nproc=${limits.maxProcesses}`);
  return [...args, "--"];
}

/**
 * prlimit(1) options of a long-lived server (a stdio MCP server): memory per process (RLIMIT_DATA)
 * and processes (RLIMIT_NPROC) only. No CPU-seconds or file-size bound: a server runs for as long as
 * the service does, and its cache (npx, uvx) holds whole packages.
 */
export function serverLimitArguments(limits: { readonly memoryMb: number; readonly maxProcesses: number }): string[] {
  return [`--data=${limits.memoryMb * mebibyte}`, `--nproc=${limits.maxProcesses}`, "--core=0", "--"];
}

/** Node's heap ceiling: below the data limit, so running out of heap is a clean, reported error. */
export function nodeHeapMb(limits: SandboxLimits): number {
  return Math.max(16, Math.floor(limits.memoryMb * 0.75));
}

/** Threads node starts before any program runs, each with a stack reserved in full: V8's platform workers and its delayed-task thread. */
const nodePlatformThreads = 5;
/** libuv's pool (files, DNS, crypto; the ES module loader uses it to load the program): 4 threads of a fixed 8 MiB. */
const libuvPoolStackMb = 4 * 8;
/** Node's own data (~8 MiB) and room for a small program. */
const nodeDataMb = 24;

/**
 * The smallest memory_mb a JavaScript program can start with when node runs under RLIMIT_DATA.
 * The rlimit counts address space reserved, not used, and node reserves a whole stack for each of
 * its threads up front: the platform threads at the stack rlimit (libuv's default; 2 MiB when it is
 * unlimited), the pool threads at 8 MiB. Below that node cannot start them and never gets to the
 * program: it waits forever for a platform thread that was never made (until the timeout), or aborts
 * without a word when its pool cannot start. With the usual 8 MiB stack rlimit: 96 MiB.
 */
export function nodeMinimumMemoryMb(stackBytes: number | null = stackLimitBytes()): number {
  const threadStackMb = stackBytes === null || stackBytes < 16 * 1024 ? 2 : Math.ceil(stackBytes / mebibyte);
  return nodePlatformThreads * threadStackMb + libuvPoolStackMb + nodeDataMb;
}

/** Found once: the stack rlimit does not change while the process runs. */
let nodeMinimum: number | undefined;

/**
 * A refusal, before anything starts, of a JavaScript worker whose memory limit node cannot start
 * under (see `nodeMinimumMemoryMb`): the same failure shape as a program that ran out of memory.
 */
export function nodeMemoryRefusal(language: SandboxLanguage, limits: SandboxLimits): Extract<PlanResult, { ok: false }> | undefined {
  nodeMinimum ??= nodeMinimumMemoryMb();
  const minimum = nodeMinimum;
  if (language !== "javascript" || limits.memoryMb >= minimum) return undefined;
  return {
    ok: false,
    code: "SANDBOX_LIMIT_EXCEEDED",
    limit: "memory",
    message:
      `A JavaScript program needs a memory limit of at least ${minimum} MiB and this run has ${limits.memoryMb} MiB: ` +
      `the per-process limit (RLIMIT_DATA) counts the stacks node reserves for its threads before the program starts, so node cannot start under it. ` +
      `Fix: raise sandbox.memory_mb (or the request's limits.memoryMb) to ${minimum} or more.`,
  };
}

/** This process's soft stack rlimit in bytes (what sandboxed processes inherit): null when unlimited, the usual 8 MiB when unreadable. */
function stackLimitBytes(): number | null {
  try {
    const line = /^Max stack size\s+(\S+)/m.exec(fs.readFileSync("/proc/self/limits", "utf8"));
    const value = line?.[1];
    return value === undefined || value === "unlimited" ? null : Number(value);
  } catch {
    return 8 * mebibyte;
  }
}
