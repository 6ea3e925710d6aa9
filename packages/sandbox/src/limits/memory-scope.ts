import { findExecutable, type SandboxBackend } from "@thinktank/core";
import type { SandboxMemoryInfo } from "../sandbox-types.js";
import { detectMemoryCgroups, type MemoryCgroups } from "./memory-cgroups.js";

/** How one executor bounds memory: the cgroups its executions get, or why there are none. */
export type MemoryScope =
  | { readonly cgroups: MemoryCgroups; readonly setpriv: string | undefined }
  | { readonly cgroups: undefined; readonly reason: string };

export interface MemoryScopeOptions {
  /** False: per process only (SandboxExecutorOptions.memoryCgroups). */
  readonly enabled: boolean;
  /** As root the sandbox runs as another user, who is dropped to after joining the cgroup (setpriv). */
  readonly hostUid: number;
  readonly searchPath: string;
}

/** The executor's memory scope: a cgroup per execution where one is writable (see `detectMemoryCgroups`), else per process. */
export async function resolveMemoryScope(options: MemoryScopeOptions): Promise<MemoryScope> {
  if (!options.enabled) return { cgroups: undefined, reason: "cgroups turned off (memoryCgroups: false)" };
  const detected = await detectMemoryCgroups();
  if (detected.mode === "per-process") return { cgroups: undefined, reason: detected.reason };
  const setpriv = findExecutable("setpriv", options.searchPath);
  if (options.hostUid === 0 && !setpriv) return { cgroups: undefined, reason: `${detected.mode} is writable, but setpriv (util-linux) was not found to drop to the sandbox user after joining it` };
  return { cgroups: detected, setpriv };
}

/** What holds for a backend, in one line; `executionCgroup` says whether the backend uses a writable cgroup (see `Launcher`). */
export function memoryInfo(scope: MemoryScope, backend: Exclude<SandboxBackend, "auto">, executionCgroup: boolean): SandboxMemoryInfo {
  const version = scope.cgroups?.version === 2 ? "cgroup v2" : "cgroup v1";
  if (!executionCgroup) {
    const unused = scope.cgroups ? `; ${version} is writable but not used for ${backend}` : "";
    return { mode: "per-process", description: `per process (${backend} is one process: V8 heap cap, Pyodide's memory cap, RLIMIT_DATA${unused})` };
  }
  if (scope.cgroups) return { mode: scope.cgroups.mode, description: `per execution (${version}: all processes of a run together; RLIMIT_DATA per process inside)` };
  return { mode: "per-process", description: `per process (RLIMIT_DATA); no cgroup: ${scope.reason}` };
}
