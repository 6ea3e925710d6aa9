import fs from "node:fs";
import path from "node:path";
import { killChildren } from "@thinktank/core";
import { discoverHost, discoverPython } from "../host/discover-host.js";
import type { HostLayout, Interpreter } from "../host/discover-host.js";
import { isReachableBy } from "../host/path-access.js";
import { writeSyntheticEtc } from "../host/synthetic-etc.js";
import { sandboxPaths } from "../sandbox-paths.js";
import { bootstrapArguments } from "../worker/bootstraps.js";
import { EgressEntrance } from "../network/egress-entrance.js";
import { sandboxEgressSocket, sandboxProxyUrl, withEgressForwarder } from "../network/sandbox-forwarder.js";
import { bwrapArguments } from "./bwrap-arguments.js";
import { withInheritedFdsClosed } from "./close-inherited-fds.js";
import { hostIdentity } from "./host-identity.js";
import type { Launcher, PlanResult, WorkerSpec } from "./launch-plan.js";
import { limitArguments, nodeHeapMb, nodeMemoryRefusal } from "./limit-arguments.js";
import { missingTool } from "./unavailable.js";
import { refusedSyscallNumbers, seccompFilter } from "./seccomp-filter.js";
import { prepareWritableMounts } from "./writable-mounts.js";

export interface BubblewrapLauncherOptions {
  /** Folder for the synthetic /etc and the workers' folders (created by the executor). */
  readonly runtimeDir: string;
  readonly searchPath: string;
  readonly bwrapCommand: string;
  readonly nodePath: string;
  readonly pythonCommand: string;
  /** The uid the host process runs as. */
  readonly hostUid: number;
  /** Who runs the sandbox when the host is root (RLIMIT_NPROC does not apply to root). */
  readonly sandboxIds: { readonly uid: number; readonly gid: number };
}

const bootstrapEnvFor = (): Record<string, string> => ({
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: sandboxPaths.workspace,
  TMPDIR: sandboxPaths.tmp,
  LANG: "C.UTF-8",
});

/** The default backend: each worker is a bubblewrap sandbox (see `bwrapArguments`). */
export class BubblewrapLauncher implements Launcher {
  readonly backend = "bubblewrap" as const;
  readonly executionCgroup = true;
  private layout: Promise<HostLayout> | undefined;
  private python: Promise<Interpreter | { problem: string }> | undefined;
  private etcDir: string | undefined;
  /** The seccomp filter file, written once (null: no syscall table for this architecture). */
  private seccompFile: string | null | undefined;

  constructor(private readonly options: BubblewrapLauncherOptions) {}

  /** The host layout, discovered once. */
  host(): Promise<HostLayout> {
    this.layout ??= discoverHost(this.options);
    return this.layout;
  }

  private get asRoot(): boolean {
    return this.options.hostUid === 0;
  }

  async describe(): Promise<Record<string, string | number | boolean | undefined>> {
    const host = await this.host();
    const refused = refusedSyscallNumbers();
    return {
      bwrap: host.bwrap ?? "not found",
      bwrapVersion: host.bwrapVersion,
      disableUserns: host.features.disableUserns,
      tmpfsSize: host.features.tmpfsSize,
      prlimit: host.prlimit ?? "not found",
      bash: host.bash ?? "not found (descriptors inherited by the host process reach the sandbox)",
      node: host.node.executable,
      seccomp: refused ? `refuses ${refused.length} system calls` : `not available on ${process.arch} (no syscall table)`,
    };
  }

  identity(spec: WorkerSpec): string {
    return hostIdentity([spec.workspaceDir, ...spec.mounts.map((mount) => mount.hostPath)]);
  }

  /** Every language's script files run (python3, node and bash are the host's own, bound read-only). */
  entryProblem(): undefined {
    return undefined;
  }

  async plan(spec: WorkerSpec, workerId: string): Promise<PlanResult> {
    const host = await this.host();
    if (!host.bwrap) return missingTool("bwrap", this.options.searchPath);
    if (!host.prlimit) return missingTool("prlimit", this.options.searchPath);
    const tooLittleMemory = nodeMemoryRefusal(spec.language, spec.limits);
    if (tooLittleMemory) return tooLittleMemory;
    const interpreter = await this.interpreter(spec, host);
    if ("problem" in interpreter) return { ok: false, code: "SANDBOX_UNAVAILABLE", message: `${interpreter.problem}. Fix: install python3 or set the executor's pythonCommand` };

    const { uid, gid } = this.options.sandboxIds;
    const writable = prepareWritableMounts(spec.mounts, { asRoot: this.asRoot, sandboxIds: this.options.sandboxIds });
    if (!writable.ok) return writable;
    this.etcDir ??= writeSyntheticEtc(path.join(this.options.runtimeDir, "etc"));
    if (this.seccompFile === undefined) this.seccompFile = writeSeccompFilter(this.options.runtimeDir);
    // Passed to the launched process as descriptor 4 (after stdio and the job channel).
    const passFiles = this.seccompFile ? [this.seccompFile] : [];
    const workersDir = path.join(this.options.runtimeDir, "workers");
    fs.mkdirSync(workersDir, { recursive: true, mode: 0o755 });
    const runDir = path.join(workersDir, workerId);
    fs.mkdirSync(runDir, { mode: this.asRoot ? 0o750 : 0o700 });
    if (this.asRoot) {
      fs.chownSync(runDir, 0, gid);
      const workspace = fs.statSync(spec.workspaceDir);
      if (workspace.uid !== uid) fs.chownSync(spec.workspaceDir, uid, gid);
    }

    // A worker that may use the network runs the egress forwarder on the host's node: bind its folders too.
    const binds = spec.network ? [...new Set([...interpreter.binds, ...host.node.binds])] : interpreter.binds;
    // bubblewrap resolves bind sources as the sandbox user: as root, stage what that user cannot reach.
    const sources = [...host.systemEntries.filter((entry) => !entry.symlink).map((entry) => entry.path), ...binds, this.etcDir, runDir, spec.workspaceDir, ...spec.mounts.map((mount) => mount.hostPath)];
    const staged = new Map<string, string>();
    if (this.asRoot) {
      for (const source of sources) {
        if (isReachableBy(source, uid, gid)) continue;
        const stagePoint = path.join(runDir, `stage-${staged.size}`);
        if (fs.statSync(source).isDirectory()) fs.mkdirSync(stagePoint, { mode: 0o755 });
        else fs.writeFileSync(stagePoint, "", { mode: 0o644 });
        staged.set(source, stagePoint);
      }
    }
    const alternatives = fs.existsSync("/etc/alternatives") ? "/etc/alternatives" : undefined;
    const programBase = path.posix.join(sandboxPaths.tmp, "thinktank-main");
    const interpreterCommand = [host.prlimit, ...limitArguments(spec.limits, { processes: true }), interpreter.executable, ...bootstrapArguments(spec.language, programBase, nodeHeapMb(spec.limits))];
    const args = bwrapArguments({
      features: host.features,
      systemEntries: host.systemEntries,
      etcDir: this.etcDir,
      alternativesDir: alternatives,
      interpreterBinds: binds,
      runDir,
      workspaceDir: spec.workspaceDir,
      mounts: spec.mounts,
      tmpMb: spec.limits.tmpMb,
      env: bootstrapEnvFor(),
      sourceOf: (hostPath) => staged.get(hostPath) ?? hostPath,
      ...(passFiles.length > 0 ? { seccompFd: 4 } : {}),
      command: spec.network ? withEgressForwarder(host.node.executable, interpreterCommand) : interpreterCommand,
    });

    let command = host.bwrap;
    let commandArgs = args;
    if (staged.size > 0) {
      if (!host.unshare || !host.setpriv || !host.mount) return missingTool(!host.unshare ? "unshare" : !host.setpriv ? "setpriv" : "mount", this.options.searchPath);
      // A private mount namespace where the unreachable folders are bound onto reachable stage points; then drop to the sandbox user.
      const bindPairs = [...staged].flatMap(([source, stagePoint]) => [source, stagePoint]);
      const script = `mount=$1; shift; while [ "$1" != "--" ]; do "$mount" --bind "$1" "$2" || exit 125; shift 2; done; shift; exec "$@"`;
      command = host.unshare;
      commandArgs = ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", host.mount, ...bindPairs, "--", host.setpriv, `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--", host.bwrap, ...args];
    }
    const launch = withInheritedFdsClosed(host.bash, command, commandArgs, 3 + passFiles.length);
    // The forwarder inside relays to this socket, in the folder bound at /run/thinktank.
    const egress = spec.network ? await EgressEntrance.listenUnix(path.join(runDir, "egress.sock"), { proxyUrl: sandboxProxyUrl, programSocket: sandboxEgressSocket }, this.asRoot ? { uid: 0, gid } : undefined) : undefined;
    return {
      ok: true,
      plan: {
        command: launch.command,
        args: launch.args,
        env: {},
        cwd: "/",
        ...(this.asRoot && staged.size === 0 ? { uid, gid } : {}),
        detached: false,
        baseEnv: bootstrapEnvFor(),
        bridge: { kind: "proxy", listenPath: path.join(runDir, "bridge.sock"), sandboxPath: sandboxPaths.bridgeSocket, ...(this.asRoot ? { owner: { uid: 0, gid } } : {}) },
        passFiles,
        ...(egress ? { egress } : {}),
        envCommand: "/usr/bin/env",
        // The sandbox's pid 1 is bubblewrap's child: when it dies, the kernel kills everything else in its pid
        // namespace, and bubblewrap reaps it and exits (the worker kills bubblewrap if it lingers).
        killTree: killChildren,
        // Nothing can outlive bubblewrap: when the sandbox's pid 1 ends, the kernel kills the rest of its pid namespace.
        afterExit: () => undefined,
        cleanup: () => {
          egress?.close();
          fs.rmSync(runDir, { recursive: true, force: true });
        },
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

function writeSeccompFilter(runtimeDir: string): string | null {
  const filter = seccompFilter();
  if (!filter) return null;
  const file = path.join(runtimeDir, "seccomp.bpf");
  fs.writeFileSync(file, filter, { mode: 0o644 });
  return file;
}
