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
import type { BridgeExposure, Launcher, PlanResult, WorkerSpec } from "./launch-plan.js";
import { limitArguments, nodeHeapMb, nodeMemoryRefusal, serverLimitArguments } from "./limit-arguments.js";
import { missingTool } from "./unavailable.js";
import { refusedSyscallNumbers, seccompFilter } from "./seccomp-filter.js";
import { prepareWritableMounts } from "./writable-mounts.js";
import { serverFiles } from "../servers/server-files.js";
import { hostCaCertificates, serverLayout, serverTmpMb } from "../servers/server-layout.js";
import type { SandboxServerRequest } from "../servers/server-types.js";
import type { SandboxMount } from "../sandbox-types.js";

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

/** What one sandbox holds and runs (a worker's or a server's), for `sandboxPlan`. */
interface SandboxLayout {
  readonly runDir: string;
  readonly binds: readonly string[];
  readonly workspaceDir: string;
  readonly mounts: readonly SandboxMount[];
  readonly covers?: { readonly folders: readonly string[]; readonly files: readonly string[] };
  readonly chdir?: string;
  /** The host's CA certificates, at /etc/ssl/certs inside. @default none */
  readonly caCertificatesDir?: string;
  readonly tmpMb: number;
  readonly env: Readonly<Record<string, string>>;
  readonly command: readonly string[];
  readonly network: boolean;
  readonly bridge: BridgeExposure;
}

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
    const missing = this.missingTools(host);
    if (missing) return missing;
    const tooLittleMemory = nodeMemoryRefusal(spec.language, spec.limits);
    if (tooLittleMemory) return tooLittleMemory;
    const interpreter = await this.interpreter(spec, host);
    if ("problem" in interpreter) return { ok: false, code: "SANDBOX_UNAVAILABLE", message: `${interpreter.problem}. Fix: install python3 or set the executor's pythonCommand` };

    const writable = prepareWritableMounts(spec.mounts, { asRoot: this.asRoot, sandboxIds: this.options.sandboxIds });
    if (!writable.ok) return writable;
    const runDir = this.makeRunDir(workerId);
    this.handOverWorkspace(spec.workspaceDir);
    // A worker that may use the network runs the egress forwarder on the host's node: bind its folders too.
    const binds = spec.network ? [...new Set([...interpreter.binds, ...host.node.binds])] : interpreter.binds;
    const programBase = path.posix.join(sandboxPaths.tmp, "thinktank-main");
    const interpreterCommand = [host.prlimit as string, ...limitArguments(spec.limits, { processes: true }), interpreter.executable, ...bootstrapArguments(spec.language, programBase, nodeHeapMb(spec.limits))];
    return this.sandboxPlan(host, {
      runDir,
      binds,
      workspaceDir: spec.workspaceDir,
      mounts: spec.mounts,
      tmpMb: spec.limits.tmpMb,
      env: bootstrapEnvFor(),
      command: spec.network ? withEgressForwarder(host.node.executable, interpreterCommand) : interpreterCommand,
      network: spec.network === true,
      bridge: { kind: "proxy", listenPath: path.join(runDir, "bridge.sock"), sandboxPath: sandboxPaths.bridgeSocket, ...(this.asRoot ? { owner: { uid: 0, gid: this.options.sandboxIds.gid } } : {}) },
    });
  }

  /**
   * A long-lived server's sandbox (a stdio MCP server; see `startServer` in src/servers): the same
   * isolation as a worker's, with its home at the workspace path, its cwd read-only, no bridge, the
   * forwarder to the egress proxy when it has network, memory and process rlimits but no CPU or
   * file-size bound, and its environment read from a file in its own folder (never a command line
   * another local user could read).
   */
  async planServer(request: SandboxServerRequest, workerId: string): Promise<PlanResult> {
    const host = await this.host();
    const missing = this.missingTools(host);
    if (missing) return missing;
    if (!host.bash) return missingTool("bash", this.options.searchPath);
    this.python ??= discoverPython(this.options.pythonCommand, this.options.searchPath, host.systemEntries);
    const python = await this.python;
    const layout = serverLayout(request, host, "problem" in python ? undefined : python, this.options.searchPath);
    if (!layout.ok) return { ok: false, code: "VALIDATION_FAILED", message: layout.message };
    const network = (request.network ?? []).length > 0;
    const runDir = this.makeRunDir(workerId);
    this.handOverWorkspace(request.homeDir);
    const files = serverFiles(runDir, this.asRoot ? this.options.sandboxIds.gid : undefined);
    const program = [host.prlimit as string, ...serverLimitArguments(request.limits), ...files.loader(host.bash), ...layout.program];
    const planned = await this.sandboxPlan(host, {
      runDir,
      binds: layout.binds,
      workspaceDir: request.homeDir,
      mounts: layout.mounts,
      covers: layout.covers,
      ...(layout.chdir ? { chdir: layout.chdir } : {}),
      tmpMb: serverTmpMb,
      ...(fs.existsSync(hostCaCertificates) ? { caCertificatesDir: hostCaCertificates } : {}),
      env: layout.env,
      command: network ? withEgressForwarder(host.node.executable, program) : program,
      network,
      bridge: { kind: "direct" },
    });
    if (!planned.ok) {
      fs.rmSync(runDir, { recursive: true, force: true });
      return planned;
    }
    const egress = planned.plan.egress;
    files.write({ ...layout.env, ...request.env, ...(egress ? files.egressEnv(egress.env, request.env) : {}) }, { fetchPreload: egress !== undefined });
    return planned;
  }

  private missingTools(host: HostLayout): PlanResult | undefined {
    if (!host.bwrap) return missingTool("bwrap", this.options.searchPath);
    if (!host.prlimit) return missingTool("prlimit", this.options.searchPath);
    return undefined;
  }

  /** The worker's own folder, bound read-only at /run/thinktank (as root: the sandbox user's group may read it). */
  private makeRunDir(workerId: string): string {
    const workersDir = path.join(this.options.runtimeDir, "workers");
    fs.mkdirSync(workersDir, { recursive: true, mode: 0o755 });
    const runDir = path.join(workersDir, workerId);
    fs.mkdirSync(runDir, { mode: this.asRoot ? 0o750 : 0o700 });
    if (this.asRoot) fs.chownSync(runDir, 0, this.options.sandboxIds.gid);
    return runDir;
  }

  /** As root the sandbox runs as the sandbox user, who must own the folder it writes. */
  private handOverWorkspace(folder: string): void {
    if (!this.asRoot) return;
    const { uid, gid } = this.options.sandboxIds;
    if (fs.statSync(folder).uid !== uid) fs.chownSync(folder, uid, gid);
  }

  /** The launch plan of a laid-out sandbox: staging of folders the sandbox user cannot reach (as root), bubblewrap's command line, the descriptors closed, the egress entrance. */
  private async sandboxPlan(host: HostLayout, layout: SandboxLayout): Promise<PlanResult> {
    const { uid, gid } = this.options.sandboxIds;
    const { runDir } = layout;
    this.etcDir ??= writeSyntheticEtc(path.join(this.options.runtimeDir, "etc"));
    if (this.seccompFile === undefined) this.seccompFile = writeSeccompFilter(this.options.runtimeDir);
    // Passed to the launched process as descriptor 4 (after stdio and the job channel).
    const passFiles = this.seccompFile ? [this.seccompFile] : [];
    // bubblewrap resolves bind sources as the sandbox user: as root, stage what that user cannot reach.
    const sources = [...host.systemEntries.filter((entry) => !entry.symlink).map((entry) => entry.path), ...layout.binds, this.etcDir, ...(layout.caCertificatesDir ? [layout.caCertificatesDir] : []), runDir, layout.workspaceDir, ...layout.mounts.map((mount) => mount.hostPath)];
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
    const args = bwrapArguments({
      features: host.features,
      systemEntries: host.systemEntries,
      etcDir: this.etcDir,
      alternativesDir: alternatives,
      interpreterBinds: layout.binds,
      runDir,
      workspaceDir: layout.workspaceDir,
      mounts: layout.mounts,
      ...(layout.covers ? { covers: layout.covers } : {}),
      ...(layout.chdir ? { chdir: layout.chdir } : {}),
      ...(layout.caCertificatesDir ? { caCertificatesDir: layout.caCertificatesDir } : {}),
      tmpMb: layout.tmpMb,
      env: layout.env,
      sourceOf: (hostPath) => staged.get(hostPath) ?? hostPath,
      ...(passFiles.length > 0 ? { seccompFd: 4 } : {}),
      command: layout.command,
    });

    const bwrap = host.bwrap as string;
    let command = bwrap;
    let commandArgs = args;
    if (staged.size > 0) {
      if (!host.unshare || !host.setpriv || !host.mount) return missingTool(!host.unshare ? "unshare" : !host.setpriv ? "setpriv" : "mount", this.options.searchPath);
      // A private mount namespace where the unreachable folders are bound onto reachable stage points; then drop to the sandbox user.
      const bindPairs = [...staged].flatMap(([source, stagePoint]) => [source, stagePoint]);
      const script = `mount=$1; shift; while [ "$1" != "--" ]; do "$mount" --bind "$1" "$2" || exit 125; shift 2; done; shift; exec "$@"`;
      command = host.unshare;
      commandArgs = ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", host.mount, ...bindPairs, "--", host.setpriv, `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--", bwrap, ...args];
    }
    const launch = withInheritedFdsClosed(host.bash, command, commandArgs, 3 + passFiles.length);
    // The forwarder inside relays to this socket, in the folder bound at /run/thinktank.
    const egress = layout.network ? await EgressEntrance.listenUnix(path.join(runDir, "egress.sock"), { proxyUrl: sandboxProxyUrl, programSocket: sandboxEgressSocket }, this.asRoot ? { uid: 0, gid } : undefined) : undefined;
    return {
      ok: true,
      plan: {
        command: launch.command,
        args: launch.args,
        env: {},
        cwd: "/",
        ...(this.asRoot && staged.size === 0 ? { uid, gid } : {}),
        detached: false,
        baseEnv: layout.env,
        bridge: layout.bridge,
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
