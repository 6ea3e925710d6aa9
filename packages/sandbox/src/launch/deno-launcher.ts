import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { findExecutable, killProcessTree } from "@thinktank/core";
import { isReachableBy } from "../host/path-access.js";
import { findDenoRuntime, type DenoRuntime } from "../host/runtime-packages.js";
import { sandboxPaths } from "../sandbox-paths.js";
import { denoBootstrap } from "../worker/deno-bootstraps.js";
import { withInheritedFdsClosed } from "./close-inherited-fds.js";
import { EgressEntrance } from "../network/egress-entrance.js";
import { denoArguments } from "./deno-arguments.js";
import { hostIdentity } from "./host-identity.js";
import { justBashBundle } from "./just-bash-bundle.js";
import type { Launcher, PlanResult, WorkerSpec } from "./launch-plan.js";
import type { SandboxLanguage } from "../sandbox-types.js";
import { limitArguments, nodeHeapMb } from "./limit-arguments.js";
import { prepareWritableMounts } from "./writable-mounts.js";

const run = promisify(execFile);
/** Address space Deno's V8 reserves writable before any program runs (it does not start under 600 MiB of RLIMIT_DATA). */
const denoReservedMb = 640;

export interface DenoLauncherOptions {
  /** Folder for the bootstraps, Deno's cache and the workers' folders (created by the executor). */
  readonly runtimeDir: string;
  /** Where prlimit and bash are looked up. */
  readonly searchPath: string;
  readonly hostUid: number;
  /** Who runs Deno when the host is root (defence in depth under Deno's permissions). */
  readonly sandboxIds: { readonly uid: number; readonly gid: number };
  /** @default what `npm install` brought (the deno, pyodide and just-bash packages) */
  readonly runtime?: DenoRuntime;
}

/**
 * The backend that `npm install` alone provides: each worker is a `deno run` whose permissions
 * allow reading only its own folder, the workspace, the mounts and the runtime it needs
 * (Pyodide's files for Python), writing only the workspace and writable mounts, and connecting
 * only to its bridge socket; no environment, subprocess, FFI or system information. JavaScript
 * runs natively, Python in Pyodide (standard library only), the shell in just-bash (simulated: no
 * host program runs). The heap is capped by V8, CPU, memory and file size by prlimit where it
 * exists; the wall clock by the host, which kills the process group.
 */
export class DenoLauncher implements Launcher {
  readonly backend = "deno" as const;
  /**
   * Deno starts no process, so a cgroup would bound nothing the caps below do not, and at memory_mb
   * it would kill the runtime itself first (Deno with Pyodide needs more than 128 MiB resident before
   * any program runs): the V8 heap cap, Pyodide's memory cap and RLIMIT_DATA fail cleanly instead.
   */
  readonly executionCgroup = false;
  private readonly runtime: DenoRuntime;
  private readonly prlimit: string | undefined;
  private readonly bash: string | undefined;
  private files: { bootstraps: Record<string, string>; cacheDir: string } | undefined;
  private justBash: Promise<string | { problem: string }> | undefined;

  constructor(private readonly options: DenoLauncherOptions) {
    this.runtime = options.runtime ?? findDenoRuntime();
    this.prlimit = process.platform === "linux" ? findExecutable("prlimit", options.searchPath) : undefined;
    this.bash = findExecutable("bash", options.searchPath);
  }

  private get asRoot(): boolean {
    return this.options.hostUid === 0 && process.platform !== "win32";
  }

  async describe(): Promise<Record<string, string | number | boolean | undefined>> {
    const version = this.runtime.deno ? await run(this.runtime.deno, ["--version"], { env: { NO_COLOR: "1" }, timeout: 10_000 }).then((out) => out.stdout.split("\n")[0]?.trim(), () => undefined) : undefined;
    return {
      deno: this.runtime.deno ?? "not found (npm install brings it: the deno package)",
      denoVersion: version,
      pyodide: this.runtime.pyodideDir ?? "not found (npm install brings it: the pyodide package)",
      shell: "just-bash (simulated; no host program runs)",
      prlimit: this.prlimit ?? "not found (no CPU, memory or file-size rlimits; the V8 heap and Pyodide's memory are still capped)",
    };
  }

  identity(spec: WorkerSpec): string {
    return hostIdentity([spec.workspaceDir, ...spec.mounts.map((mount) => mount.hostPath)]);
  }

  entryProblem(language: SandboxLanguage): string | undefined {
    if (language !== "shell") return undefined;
    return "the deno sandbox backend runs no shell script file: a shell script needs real programs (bash and what it calls), which only the bubblewrap backend provides. Fix: install bubblewrap (apt-get install bubblewrap) so sandbox.backend auto picks it, or set sandbox.backend: bubblewrap";
  }

  async plan(spec: WorkerSpec, workerId: string): Promise<PlanResult> {
    const { deno, pyodideDir } = this.runtime;
    if (!deno) return unavailable("the `deno` npm package (with its binary for this platform)");
    if (spec.language === "python" && !pyodideDir) return unavailable("the `pyodide` npm package");
    let justBash: string | undefined;
    if (spec.language === "shell") {
      if (!this.runtime.justBashDir) return unavailable("the `just-bash` npm package");
      this.justBash ??= justBashBundle(this.runtime.justBashDir, path.join(this.options.runtimeDir, "deno"));
      const bundled = await this.justBash;
      if (typeof bundled !== "string") return { ok: false, code: "SANDBOX_UNAVAILABLE", message: `The deno sandbox's shell could not be prepared from just-bash: ${bundled.problem}. Fix: run \`npm install\` again.` };
      justBash = bundled;
    }
    // As with bubblewrap, the sandbox user is given each writable mount with what the host wrote there (e.g. write_file's outputs).
    const writable = prepareWritableMounts(spec.mounts, { asRoot: this.asRoot, sandboxIds: this.options.sandboxIds });
    if (!writable.ok) return writable;
    const files = this.prepareFiles();
    const { uid, gid } = this.options.sandboxIds;
    const runDir = path.join(this.options.runtimeDir, "workers", workerId);
    fs.mkdirSync(path.dirname(runDir), { recursive: true, mode: 0o755 });
    fs.mkdirSync(runDir, { mode: 0o700 });
    const writableMounts = spec.mounts.filter((mount) => mount.writable).map((mount) => mount.hostPath);
    // As root, Deno runs as the sandbox user when that user can reach every path it needs; a data
    // dir under a root-only folder (/root, a 0700 temp dir) cannot be, and there Deno runs as root,
    // confined by its permissions alone (bubblewrap binds such folders instead; Deno cannot).
    const needed = [deno, runDir, files.cacheDir, ...Object.values(files.bootstraps), spec.workspaceDir, ...spec.mounts.map((mount) => mount.hostPath), ...(pyodideDir ? [pyodideDir] : []), ...(justBash ? [justBash] : [])];
    const asSandboxUser = this.asRoot && needed.every((target) => isReachableBy(target, uid, gid));
    if (asSandboxUser) {
      // Deno runs as the sandbox user; it owns its folder (the program file) and, as with bubblewrap, the workspace.
      fs.chownSync(runDir, uid, gid);
      if (fs.statSync(spec.workspaceDir).uid !== uid) fs.chownSync(spec.workspaceDir, uid, gid);
    }
    const bridgeSocket = path.join(runDir, "bridge.sock");
    const program = path.join(runDir, "main.mjs");
    const mounts = [{ hostPath: spec.workspaceDir, sandboxPath: sandboxPaths.workspace, writable: true }, ...spec.mounts];
    const settings = {
      workspace: spec.workspaceDir,
      workspacePath: sandboxPaths.workspace,
      program,
      memoryMb: spec.limits.memoryMb,
      mounts,
      ...(pyodideDir ? { pyodideDir } : {}),
      ...(justBash ? { justBash } : {}),
    };
    // A worker that may use the network: a loopback listener of its own with a secret, the only TCP address Deno may reach (see src/network/proxied-fetch.ts).
    const egress = spec.network ? await EgressEntrance.listenLoopback() : undefined;
    const args = denoArguments({
      bootstrap: files.bootstraps[spec.language] as string,
      settings: JSON.stringify(settings),
      heapMb: nodeHeapMb(spec.limits),
      read: [runDir, spec.workspaceDir, ...spec.mounts.map((mount) => mount.hostPath), ...(spec.language === "python" && pyodideDir ? [pyodideDir] : []), ...(justBash ? [justBash] : [])],
      write: [spec.workspaceDir, ...writableMounts, ...(spec.language === "javascript" ? [program] : []), bridgeSocket],
      unixSockets: [bridgeSocket],
      ...(egress?.address ? { tcpAddresses: [egress.address] } : {}),
      // just-bash's ls and stat ask for the user and group ids.
      sys: spec.language === "shell" ? ["uid", "gid"] : [],
    });
    // V8 reserves about 550 MiB of writable address space up front: RLIMIT_DATA leaves the program about memoryMb above that.
    const limits = { ...spec.limits, memoryMb: spec.limits.memoryMb + denoReservedMb };
    const command = this.prlimit ? [this.prlimit, ...limitArguments(limits, { processes: false }), deno, ...args] : [deno, ...args];
    const launch = withInheritedFdsClosed(this.bash, command[0] as string, command.slice(1), 2);
    const home = spec.language === "javascript" ? spec.workspaceDir : sandboxPaths.workspace;
    return {
      ok: true,
      plan: {
        command: launch.command,
        args: launch.args,
        // Deno's own settings only: the program cannot read them (no env permission).
        env: { DENO_DIR: files.cacheDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
        cwd: spec.workspaceDir,
        ...(asSandboxUser ? { uid, gid } : {}),
        detached: process.platform !== "win32",
        baseEnv: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
        bridge: { kind: "proxy", listenPath: bridgeSocket, sandboxPath: bridgeSocket, ...(asSandboxUser ? { owner: { uid: 0, gid } } : {}) },
        ...(egress ? { egress } : {}),
        channel: "stdin",
        // JavaScript runs natively and sees host paths; Pyodide sees the mounts at their sandbox paths.
        entryPaths: spec.language === "javascript" ? "host" : "sandbox",
        // Deno may start no process (no run permission): its process group is the whole tree.
        killTree: killProcessTree,
        afterExit: (pid) => {
          try {
            process.kill(-pid, "SIGKILL");
          } catch {
            // the group is empty
          }
        },
        cleanup: () => {
          egress?.close();
          fs.rmSync(runDir, { recursive: true, force: true });
        },
      },
    };
  }

  /** The bootstraps and Deno's cache folder, written once per executor. */
  private prepareFiles(): { bootstraps: Record<string, string>; cacheDir: string } {
    if (this.files) return this.files;
    const dir = path.join(this.options.runtimeDir, "deno");
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    const bootstraps: Record<string, string> = {};
    for (const language of ["javascript", "python", "shell"] as const) {
      const file = path.join(dir, `${language}-bootstrap.mjs`);
      fs.writeFileSync(file, denoBootstrap(language), { mode: 0o644 });
      bootstraps[language] = file;
    }
    const cacheDir = path.join(dir, "cache");
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    if (this.asRoot) fs.chownSync(cacheDir, this.options.sandboxIds.uid, this.options.sandboxIds.gid);
    this.files = { bootstraps, cacheDir };
    return this.files;
  }
}

function unavailable(what: string): PlanResult {
  return {
    ok: false,
    code: "SANDBOX_UNAVAILABLE",
    message: `The deno sandbox needs ${what}, which is not installed. Fix: run \`npm install\` in the Thinktank folder (the package is a dependency of @thinktank/sandbox).`,
  };
}
