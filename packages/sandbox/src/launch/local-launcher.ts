import fs from "node:fs";
import path from "node:path";
import { killProcessTree } from "@thinktank/core";
import { discoverHost, discoverPython } from "../host/discover-host.js";
import type { HostLayout, Interpreter } from "../host/discover-host.js";
import { bootstrapArguments } from "../worker/bootstraps.js";
import { hostIdentity } from "./host-identity.js";
import type { Launcher, PlanResult, WorkerSpec } from "./launch-plan.js";
import { limitArguments, nodeHeapMb, nodeMemoryRefusal } from "./limit-arguments.js";
import { withInheritedFdsClosed } from "./close-inherited-fds.js";

export interface LocalLauncherOptions {
  readonly runtimeDir: string;
  readonly searchPath: string;
  readonly nodePath: string;
  readonly pythonCommand: string;
}

/**
 * No isolation: the program runs as the host user, sees the host's files and network, and reaches
 * the bridge at its host path. Only when config.yaml says `sandbox.backend: local`. It still gets a
 * clean environment, the wall-clock timeout (killing its process group and every descendant), output
 * caps, and the CPU, memory and file-size limits (not the process count, which the host user shares).
 */
export class LocalLauncher implements Launcher {
  readonly backend = "local" as const;
  readonly executionCgroup = true;
  private layout: Promise<HostLayout> | undefined;
  private python: Promise<Interpreter | { problem: string }> | undefined;

  constructor(private readonly options: LocalLauncherOptions) {}

  async describe(): Promise<Record<string, string | number | boolean | undefined>> {
    this.layout ??= discoverHost({ ...this.options, bwrapCommand: "bwrap" });
    const host = await this.layout;
    return { prlimit: host.prlimit ?? "not found (no CPU, memory or file-size limits)", node: host.node.executable };
  }

  identity(spec: WorkerSpec): string {
    return hostIdentity([spec.workspaceDir]);
  }

  /** Every language's script files run, at their host paths (mounts are not remapped). */
  entryProblem(): undefined {
    return undefined;
  }

  async plan(spec: WorkerSpec, workerId: string): Promise<PlanResult> {
    this.layout ??= discoverHost({ ...this.options, bwrapCommand: "bwrap" });
    const host = await this.layout;
    // Without prlimit (macOS) there is no RLIMIT_DATA for node to start under.
    const tooLittleMemory = host.prlimit ? nodeMemoryRefusal(spec.language, spec.limits) : undefined;
    if (tooLittleMemory) return tooLittleMemory;
    const interpreter = await this.interpreter(spec, host);
    if ("problem" in interpreter) return { ok: false, code: "SANDBOX_UNAVAILABLE", message: `${interpreter.problem}. Fix: install python3 or set the executor's pythonCommand` };
    const runDir = path.join(this.options.runtimeDir, "workers", workerId);
    fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const interpreterCommand = [interpreter.executable, ...bootstrapArguments(spec.language, path.join(runDir, "main"), nodeHeapMb(spec.limits))];
    const [command, ...args] = host.prlimit ? [host.prlimit, ...limitArguments(spec.limits, { processes: false }), ...interpreterCommand] : interpreterCommand;
    const launch = withInheritedFdsClosed(host.bash, command as string, args);
    const baseEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: spec.workspaceDir, TMPDIR: runDir, LANG: "C.UTF-8" };
    return {
      ok: true,
      plan: {
        command: launch.command,
        args: launch.args,
        env: baseEnv,
        cwd: spec.workspaceDir,
        detached: true,
        baseEnv,
        bridge: { kind: "direct" },
        envCommand: "/usr/bin/env",
        entryPaths: "host",
        killTree: killProcessTree,
        afterExit: (pid) => {
          try {
            process.kill(-pid, "SIGKILL");
          } catch {
            // the group is empty: nothing was left behind
          }
        },
        cleanup: () => fs.rmSync(runDir, { recursive: true, force: true }),
      },
    };
  }

  private interpreter(spec: WorkerSpec, host: HostLayout): Promise<Interpreter | { problem: string }> {
    if (spec.language === "javascript") return Promise.resolve(host.node);
    if (spec.language === "shell") return Promise.resolve({ executable: "/bin/sh", binds: [] });
    this.python ??= discoverPython(this.options.pythonCommand, this.options.searchPath, host.systemEntries);
    return this.python;
  }
}
