import type { Config } from "@thinktank/core";
import type { SandboxResult } from "@thinktank/sandbox";
import type { WorkerStatus } from "./worker/conversion-job.js";

export type RunOutcome = { readonly ok: true; readonly markdown: string; readonly truncated: boolean } | { readonly ok: false; readonly reason: string };

/**
 * What a worker's run means for the document. The reasons are this module's own sentences and the
 * worker's (which it writes for users): never the worker's stderr, which may name host paths.
 */
export function outcomeOfRun(result: SandboxResult, conversion: Config["files"]["conversion"]): RunOutcome {
  if (result.error) return { ok: false, reason: reasonOfFailure(result, conversion) };
  const newline = result.stdout.indexOf("\n");
  let status: WorkerStatus | undefined;
  try {
    status = newline > 0 ? (JSON.parse(result.stdout.slice(0, newline)) as WorkerStatus) : undefined;
  } catch {
    status = undefined;
  }
  if (!status || typeof status.ok !== "boolean") return { ok: false, reason: "the converter stopped without an answer (the document may be damaged)" };
  if (!status.ok) return { ok: false, reason: typeof status.reason === "string" ? status.reason.slice(0, 300) : "the document could not be converted" };
  if (result.stdoutTruncated) return { ok: false, reason: "the converter wrote more than the output limit" };
  return { ok: true, markdown: result.stdout.slice(newline + 1), truncated: status.truncated === true };
}

function reasonOfFailure(result: SandboxResult, conversion: Config["files"]["conversion"]): string {
  const code = result.error?.code;
  if (code === "CANCELLED") return "the conversion was cancelled";
  if (code === "SANDBOX_TIMEOUT" || result.limit === "wall_time") return `the conversion took longer than ${conversion.timeout_seconds} s and was stopped`;
  if (result.limit === "memory") return `the conversion needed more than ${conversion.memory_mb} MiB of memory and was stopped`;
  if (result.limit === "cpu") return `the conversion used more than its CPU time and was stopped`;
  if (result.limit === "output") return "the converter wrote more than the output limit and was stopped";
  if (result.limit) return `the conversion passed a sandbox limit (${result.limit}) and was stopped`;
  if (code === "SANDBOX_BUSY") return "the sandbox was busy; the document was not converted";
  if (code === "SANDBOX_UNAVAILABLE") return "the sandbox is unavailable on this server; the document was not converted";
  return "the converter failed";
}
