import type { Config } from "@thinktank/core";
import type { SandboxLimits } from "../sandbox-types.js";

/** The slices of the configuration the sandbox reads. */
export type SandboxConfig = Pick<Config, "sandbox" | "code_execution">;

/** @default 64 MiB of private /tmp */
const defaultTmpMb = 64;
/** @default 16 MiB of output before a flooding program is stopped */
const defaultKillAfterOutputBytes = 16 * 1024 * 1024;

/** The limits config.yaml sets for every run (a request may override each one). */
export function defaultLimits(config: SandboxConfig): SandboxLimits {
  return {
    memoryMb: config.sandbox.memory_mb,
    maxProcesses: config.sandbox.max_processes,
    cpuSeconds: config.sandbox.cpu_seconds,
    maxFileMb: config.sandbox.max_file_mb,
    tmpMb: defaultTmpMb,
    maxStdoutBytes: config.code_execution.max_stdout_bytes,
    maxStderrBytes: config.code_execution.max_stderr_bytes,
    killAfterOutputBytes: defaultKillAfterOutputBytes,
  };
}

/** Smallest values that still let an interpreter start; below them a run could only fail confusingly. */
const minimums: Readonly<Record<keyof SandboxLimits, number>> = {
  memoryMb: 32,
  maxProcesses: 8,
  cpuSeconds: 1,
  maxFileMb: 1,
  tmpMb: 1,
  maxStdoutBytes: 1,
  maxStderrBytes: 1,
  killAfterOutputBytes: 1024,
};

/**
 * Merges a request's overrides over the defaults. Returns the limits, or a message naming the
 * field, what was expected and what was given.
 */
export function resolveLimits(defaults: SandboxLimits, overrides: Partial<SandboxLimits> | undefined): { limits: SandboxLimits } | { problem: string } {
  const limits: Record<string, number> = { ...defaults };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) continue;
    if (!Object.hasOwn(minimums, name)) return { problem: `limits.${name}: unknown limit (expected one of ${Object.keys(minimums).join(", ")})` };
    const minimum = minimums[name as keyof SandboxLimits];
    if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
      return { problem: `limits.${name}: expected an integer >= ${minimum}, got ${JSON.stringify(value)}` };
    }
    limits[name] = value;
  }
  return { limits: limits as unknown as SandboxLimits };
}
