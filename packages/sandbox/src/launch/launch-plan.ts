import type { ErrorCode, SandboxBackend } from "@thinktank/core";
import type { EgressEntrance } from "../network/egress-entrance.js";
import type { SandboxLanguage, SandboxLimitName, SandboxLimits, SandboxMount } from "../sandbox-types.js";
import type { SandboxServerRequest } from "../servers/server-types.js";

/** What fixes a worker when it starts: a warm worker can serve any request with the same spec. */
export interface WorkerSpec {
  readonly language: SandboxLanguage;
  /** The workspace; with `freshWorkspace`, the parent the executor makes each worker's own workspace in (a launcher always gets the concrete folder). */
  readonly workspaceDir: string;
  /** Each worker gets a new empty workspace under `workspaceDir`, removed when it has ended. @default false */
  readonly freshWorkspace?: boolean;
  readonly mounts: readonly SandboxMount[];
  readonly limits: SandboxLimits;
  /** The worker can reach the egress proxy (its entrance, and on bubblewrap the forwarder inside); which hosts is the run's policy, given on claim. @default false */
  readonly network?: boolean;
}

/** How to start one worker process, and what to undo once it has ended. */
export interface LaunchPlan {
  readonly command: string;
  readonly args: readonly string[];
  /** The environment of the launched process: never the host's. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly uid?: number;
  readonly gid?: number;
  /** Start in a new process group (the local backend kills the group). */
  readonly detached: boolean;
  /** The environment every program starts from (PATH, HOME, TMPDIR, LANG); the request's env is merged over it. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Where the program reaches the bridge: a proxy the worker listens on, or the host socket itself. */
  readonly bridge: BridgeExposure;
  /** Where the program reaches the egress proxy (workers whose spec has `network`), already listening; closed with the worker. */
  readonly egress?: EgressEntrance;
  /** Files opened read-only and handed to the launched process as descriptors 4, 5, ... (bubblewrap reads its seccomp filter from one). */
  readonly passFiles?: readonly string[];
  /**
   * How the job reaches the bootstrap: on descriptor 3 (ready mark "R" written back on it), or, for
   * runtimes that cannot open inherited descriptors (Deno), as the first line of stdin with the
   * ready mark as the first byte of stdout. @default "fd3"
   */
  readonly channel?: "fd3" | "stdin";
  /** /usr/bin/env, used by the shell job to set exactly the job's environment; absent when the bootstrap takes every job as JSON (Deno). */
  readonly envCommand?: string;
  /**
   * Which path of a script file (`SandboxRequest.entry`) the program opens: its sandbox path, or its
   * host path where mounts are not remapped (local; Deno's JavaScript sees host paths). @default "sandbox"
   */
  readonly entryPaths?: "sandbox" | "host";
  /** Kills the program and everything it started, while the launched process is alive (the worker then kills the launched process if it is still there after a grace period). */
  killTree(pid: number): void;
  /** Called once the launched process has exited: kills anything it left behind (the local backend's process group). */
  afterExit(pid: number): void;
  /**
   * Processes the kernel killed for lack of memory in the execution's cgroup (when memory is bounded
   * per execution); read once the worker has ended, before `cleanup`.
   */
  oomKills?(): number;
  /** Removes the worker's files (and its cgroup) once it has ended. */
  cleanup(): void | Promise<void>;
}

export type BridgeExposure =
  /** The worker proxies connections from `listenPath` (inside a folder the sandbox sees) to the request's socket. */
  | { readonly kind: "proxy"; readonly listenPath: string; readonly sandboxPath: string; readonly owner?: { readonly uid: number; readonly gid: number } }
  /** No isolation: the program connects to the host socket directly. */
  | { readonly kind: "direct" };

/** A plan, or why the worker cannot start (`limit`: a limit it could not start under). */
export type PlanResult = { ok: true; plan: LaunchPlan } | { ok: false; code: ErrorCode; message: string; limit?: SandboxLimitName };

/** A backend: turns a worker spec into a launch plan. */
export interface Launcher {
  readonly backend: SandboxBackend;
  /**
   * Whether each worker runs in a memory cgroup of its own where one is writable (memory_mb then
   * bounds all its processes together). False for Deno: it is one process, capped from inside.
   */
  readonly executionCgroup: boolean;
  plan(spec: WorkerSpec, workerId: string): Promise<PlanResult>;
  /** What the backend found on the host (tool paths, versions), for diagnostics. */
  describe(): Promise<Readonly<Record<string, string | number | boolean | undefined>>>;
  /** Identity of the spec's host folders (device and inode), so a warm worker bound to a replaced folder is not reused. */
  identity(spec: WorkerSpec): string;
  /** Why a script file (`SandboxRequest.entry`) of this language cannot run on this backend; undefined when it can. */
  entryProblem(language: SandboxLanguage): string | undefined;
  /** A long-lived server's sandbox (bubblewrap only: the others cannot run a host program). */
  planServer?(request: SandboxServerRequest, workerId: string): Promise<PlanResult>;
}
