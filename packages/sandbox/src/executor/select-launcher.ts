import fs from "node:fs";
import path from "node:path";
import type { SandboxBackend } from "@thinktank/core";
import type { Launcher } from "../launch/launch-plan.js";
import { classifyOutcome } from "../result/classify-outcome.js";
import type { SandboxBackendInfo, SandboxLimits } from "../sandbox-types.js";
import { encodeJob } from "../worker/bootstraps.js";
import { SandboxWorker } from "../worker/sandbox-worker.js";

export type ConcreteBackend = Exclude<SandboxBackend, "auto">;

export interface SelectLauncherInput {
  readonly configured: SandboxBackend;
  readonly make: (backend: ConcreteBackend) => Launcher;
  /** Where the probe's scratch workspace goes. */
  readonly runtimeDir: string;
  readonly limits: SandboxLimits;
  /** The owner of the probe's workspace when the host is root. */
  readonly owner: { uid: number; gid: number } | undefined;
  /** Whether bwrap is installed here: `auto` falling back to deno is then a warning, not a quiet choice. */
  readonly bubblewrapInstalled: boolean;
}

export interface SelectedLauncher {
  readonly launcher: Launcher;
  /** The backend and what it isolates (the executor adds how memory holds). */
  readonly info: Omit<SandboxBackendInfo, "memory">;
}

/** What each backend isolates, in one line (logs, /healthz, `thinktank exec --json`). */
const isolation: Readonly<Record<ConcreteBackend, string>> = {
  bubblewrap: "namespaces (own filesystem view: workspace and mounts only; no network but the bridge and, for runs given host patterns, the egress proxy; own pids, user, IPC), seccomp, rlimits; no host environment",
  deno: "Deno permissions (read: workspace, mounts, runtime files; write: workspace; net: the bridge socket and, for runs given host patterns, the egress proxy only; no env, subprocess or FFI), V8 heap cap, rlimits where prlimit exists; Python in Pyodide, shell simulated by just-bash",
  local: "NOTHING: programs run as the host user with its files and network; network patterns are not enforced (sandbox.backend: local)",
};

/**
 * The launcher config.sandbox.backend names. `auto` starts a real bubblewrap sandbox once and uses
 * it when that works, else Deno (which `npm install` always brings), and says why. Never rejects.
 */
export async function selectLauncher(input: SelectLauncherInput): Promise<SelectedLauncher> {
  const chosen = (backend: ConcreteBackend, fallback?: string, warning?: string): SelectedLauncher => ({
    launcher: input.make(backend),
    info: { configured: input.configured, backend, isolated: backend !== "local", isolation: isolation[backend], ...(fallback ? { fallback } : {}), ...(warning ? { warning } : {}) },
  });
  if (input.configured !== "auto") return chosen(input.configured);
  const bubblewrap = input.make("bubblewrap");
  const problem = await probeLauncher(bubblewrap, input);
  if (problem === undefined) return { launcher: bubblewrap, info: { configured: "auto", backend: "bubblewrap", isolated: true, isolation: isolation.bubblewrap } };
  // Installed but refused (a container's seccomp, AppArmor or masked /proc): the weaker backend runs, and says so loudly.
  return chosen("deno", `bubblewrap is not usable here: ${problem}`, input.bubblewrapInstalled ? bubblewrapWarning("fallback", problem) : undefined);
}

/** What Docker needs for bubblewrap in a container, said wherever bubblewrap was expected and failed. */
const dockerHint = "in Docker, the agent's service needs security_opt seccomp:unconfined, apparmor:unconfined and systempaths=unconfined";

/**
 * The one-line warning (no host path: /healthz shows it) for bubblewrap that was expected (`fallback`:
 * installed, so `auto` meant it) or named in config.yaml (`named`) but cannot start a sandbox.
 * `problem` is the probe's full reason; only bwrap's own set-up error line is kept from it, and not
 * when it names a path of the host.
 */
export function bubblewrapWarning(kind: "fallback" | "named", problem: string): string {
  const line = /bubblewrap could not create the sandbox \((bwrap: .*?)\)\. Fix:/.exec(problem)?.[1];
  const why = line && !/source path/i.test(line) ? ` (${line})` : "";
  const effect =
    kind === "fallback"
      ? `bubblewrap is installed but cannot start a sandbox here${why}, so execute_code and bash run on the weaker deno backend (Python in Pyodide, shell simulated by just-bash)`
      : `sandbox.backend is bubblewrap, but bubblewrap cannot start a sandbox here${why}, so execute_code and bash fail with SANDBOX_UNAVAILABLE`;
  return `${effect}; the agent's start-up log says why and how to fix it (${dockerHint})`;
}

/** One line for a start-up log: the backend, what it isolates and how memory holds. */
export function backendLine(info: SandboxBackendInfo): string {
  const how = info.configured === "auto" ? ` (sandbox.backend: auto${info.fallback ? `; ${info.fallback}` : ""})` : "";
  return `sandbox: ${info.backend}${how}; isolates: ${info.isolation}; memory: ${info.memory.description}`;
}

/** Runs `exit 0` in the shell through the launcher; undefined when it worked, else the problem. */
export async function probeLauncher(launcher: Launcher, input: Pick<SelectLauncherInput, "runtimeDir" | "limits" | "owner">): Promise<string | undefined> {
  const workspace = fs.mkdtempSync(path.join(input.runtimeDir, "probe-"));
  try {
    if (input.owner) fs.chownSync(workspace, input.owner.uid, input.owner.gid);
    const spec = { language: "shell" as const, workspaceDir: workspace, mounts: [], limits: input.limits };
    const planned = await launcher.plan(spec, `probe-${process.pid}`);
    if (!planned.ok) return planned.message;
    const worker = await SandboxWorker.start(planned.plan, launcher.identity(spec), () => performance.now());
    const outcome = await worker.run({
      payload: encodeJob("shell", { source: "exit 0" }, planned.plan.baseEnv, planned.plan.envCommand),
      stdin: Buffer.alloc(0),
      timeoutMs: 20_000,
      maxStdoutBytes: 4096,
      maxStderrBytes: 4096,
      killAfterOutputBytes: 65_536,
      bridgeSocket: undefined,
    });
    const result = classifyOutcome(outcome, { backend: launcher.backend, limits: input.limits, timeoutMs: 20_000, warm: false });
    if (result.error) return result.error.message;
    return result.exitCode === 0 ? undefined : `a probe exited with code ${result.exitCode}: ${result.stderr.trim().split("\n")[0] ?? ""}`;
  } catch (error) {
    return (error as Error).message;
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}
