import type { SandboxLimits } from "../sandbox-types.js";

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

/** Node's heap ceiling: below the data limit, so running out of heap is a clean, reported error. */
export function nodeHeapMb(limits: SandboxLimits): number {
  return Math.max(16, Math.floor(limits.memoryMb * 0.75));
}
