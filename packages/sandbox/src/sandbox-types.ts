import type { Socket } from "node:net";
import type { ErrorCode, SandboxBackend } from "@thinktank/core";
import type { EgressConnection } from "./network/egress-types.js";
import type { SandboxServerLaunch, SandboxServerRequest } from "./servers/server-types.js";

/** One connection a sandboxed program made through the egress proxy: host, port, address, allowed, reason, bytes, ms. */
export type SandboxNetworkConnection = EgressConnection;

/** What the sandbox runs: bundled JavaScript (ESM), Python source, or a shell command line. */
export type SandboxLanguage = "javascript" | "python" | "shell";

/** A host folder (or file) made visible inside the sandbox: read-only unless `writable`. */
export interface SandboxMount {
  /** Absolute path on the host. */
  readonly hostPath: string;
  /** Absolute path inside the sandbox, e.g. `/mnt/code-api` or `/mnt/skills`. */
  readonly sandboxPath: string;
  /**
   * Mount it read-write (e.g. /mnt/user-data/outputs). Only a folder, and one the sandbox user may
   * be given: when the host runs as root, a folder owned by root is handed to the sandbox user (with
   * what root wrote in it), as the workspace is; a folder of another user is refused. Otherwise the
   * host user must be able to write it. @default false
   */
  readonly writable?: boolean;
}

/** Resource limits of one run. Every field has a default from config.yaml (see `resolveLimits`). */
export interface SandboxLimits {
  /**
   * Memory in MiB: per execution (all its processes together) where a cgroup is writable, and per
   * process in every mode (RLIMIT_DATA; node's heap is capped below it). @default config.sandbox.memory_mb
   */
  readonly memoryMb: number;
  /** Processes and threads inside the sandbox (RLIMIT_NPROC, counted per sandbox). @default config.sandbox.max_processes */
  readonly maxProcesses: number;
  /** CPU seconds per process (RLIMIT_CPU). @default config.sandbox.cpu_seconds */
  readonly cpuSeconds: number;
  /** Largest file a process may write, in MiB (RLIMIT_FSIZE). @default config.sandbox.max_file_mb */
  readonly maxFileMb: number;
  /** Size of the private /tmp (and of /dev/shm), in MiB. @default 64 */
  readonly tmpMb: number;
  /** Bytes of stdout returned; the rest is counted and replaced by a marker. @default config.code_execution.max_stdout_bytes */
  readonly maxStdoutBytes: number;
  /** Bytes of stderr returned. @default config.code_execution.max_stderr_bytes */
  readonly maxStderrBytes: number;
  /** Total output (stdout + stderr) after which the program is stopped, so a flood cannot run on. @default 16 MiB */
  readonly killAfterOutputBytes: number;
}

export interface SandboxRequest {
  readonly language: SandboxLanguage;
  /** JavaScript already bundled as an ES module, Python source, or a shell command line. Give exactly one of `source` and `entry`. */
  readonly source?: string;
  /**
   * The sandbox path of a script file to run instead of `source` (inside one of `mounts`, e.g.
   * `/mnt/skills/custom/<skill>/scripts/tool.py`), run as its interpreter runs a file: python as
   * `python3 file` (`sys.argv[0]` the file, its folder first on `sys.path`), javascript as `node file`
   * (CommonJS or ESM by Node's own rules), shell as `bash file`. Everything else (stdin, env, timeout,
   * limits, output caps, cancel) is as for `source`. Check `supportsEntry(language)` first: the deno
   * backend runs no shell script file.
   */
  readonly entry?: string;
  /** Host folder mounted read-write at `SANDBOX_WORKSPACE_PATH`; also the working directory. Must exist. */
  readonly workspaceDir: string;
  /**
   * Run in a new, empty working folder of this run's own, made under `workspaceDir` (then only its
   * parent) when the run's worker starts (so a warm worker has it ready) and removed when the run
   * ends; owned by the sandbox user. For calls that must not see each other's files (script tools).
   * @default false
   */
  readonly freshWorkspace?: boolean;
  /**
   * Host patterns the program may reach through the egress proxy (`host`, `host:port`,
   * `*.domain[:port]`: see config.sandbox.network and the README's "Network"). The program finds the
   * proxy in HTTP_PROXY / HTTPS_PROXY; without patterns it has no network. The local backend (no
   * isolation) ignores them, and logs that it does. @default none
   */
  readonly network?: readonly string[];
  /** Who the run is for, in the egress log lines and records (e.g. `execute_code thread-1`, `tool weather`). @default none */
  readonly networkLabel?: string;
  /** Extra mounts, read-only unless marked writable (the code API at /mnt/code-api, the skills tree at /mnt/skills, outputs, ...). */
  readonly mounts?: readonly SandboxMount[];
  /**
   * The only environment the program sees (never the host's). Merged over a small default
   * (PATH, HOME = the workspace, TMPDIR, LANG). Applied when the program starts, so variables an
   * interpreter reads while booting (NODE_OPTIONS) have no effect; PYTHONPATH is honoured.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** A host Unix socket (the MCP bridge) exposed at `SANDBOX_BRIDGE_SOCKET_PATH`; sets THINKTANK_BRIDGE_SOCKET. */
  readonly bridgeSocket?: string;
  /**
   * When the bridge runs in this process: takes each connection the program opens to the bridge,
   * instead of forwarding it to `bridgeSocket` (one socket hop less per call). `bridgeSocket` is
   * still required: the local backend connects to it directly.
   */
  readonly bridgeConnection?: (socket: Socket) => void;
  /** The per-execution bridge secret; sets THINKTANK_BRIDGE_TOKEN. */
  readonly bridgeToken?: string;
  /** Wall-clock limit; the whole process tree is killed when it passes. @default config.code_execution.timeout_seconds */
  readonly timeoutMs?: number;
  /** Bytes fed to the program's standard input (closed right after). @default empty */
  readonly stdin?: string | Uint8Array;
  readonly limits?: Partial<SandboxLimits>;
  /**
   * Cancels the run: the whole process tree is killed as on a timeout, and `run` resolves (with
   * error CANCELLED) once every process is gone. Aborted before the program starts: it never starts.
   */
  readonly signal?: AbortSignal;
}

/** Which limit ended a run. */
export type SandboxLimitName = "wall_time" | "cpu" | "memory" | "processes" | "file_size" | "output" | "disk";

export interface SandboxResult {
  /** The program's exit code; null when the host stopped it (timeout, output flood) or it could not start. */
  readonly exitCode: number | null;
  /**
   * The signal that ended the program, as far as it can be told. Inside the bubblewrap pid namespace
   * a death by signal n reaches the host as exit code 128 + n (the shell convention).
   */
  readonly signal?: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly timedOut: boolean;
  /** From handing the program over to the end of the last process. */
  readonly durationMs: number;
  /** Set when a limit ended the run. */
  readonly limit?: SandboxLimitName;
  /** True when a pre-started worker, already up, ran the program. */
  readonly warm: boolean;
  /** Set when the run did not complete normally: the sandbox is unavailable, the request is invalid, a limit was hit. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
  /** Every connection the program made through the egress proxy, allowed or refused (runs with `network` patterns, on isolating backends). */
  readonly network?: readonly SandboxNetworkConnection[];
  /** Connections past the first 1,000 of the run: counted, not listed in `network` (nor logged one by one). */
  readonly networkOmitted?: number;
}

/** The part of a request that fixes a worker at start-up (used to pre-start workers). */
export type SandboxWarmRequest = Pick<SandboxRequest, "language" | "workspaceDir" | "freshWorkspace" | "mounts" | "limits" | "network">;

/** Which backend runs programs, and what it isolates. */
export interface SandboxBackendInfo {
  /** config.sandbox.backend. */
  readonly configured: SandboxBackend;
  /** The backend in use (`auto` resolved). */
  readonly backend: Exclude<SandboxBackend, "auto">;
  /** False for the local backend. */
  readonly isolated: boolean;
  /** What the backend isolates, in one line. */
  readonly isolation: string;
  /** Why `auto` did not pick bubblewrap. */
  readonly fallback?: string;
  /** Why the named backend (sandbox.backend: bubblewrap) cannot start a sandbox here: its runs fail with SANDBOX_UNAVAILABLE. */
  readonly problem?: string;
  /**
   * Set when bubblewrap was expected (its bwrap is installed, as in the Docker image) or named in
   * config.yaml but cannot start a sandbox here: one line for logs and /healthz, with no host path
   * (the full reason is `fallback` or `problem`). Unset when bubblewrap works, or is simply not installed.
   */
  readonly warning?: string;
  /** How memory_mb holds: per execution (a cgroup) or per process. */
  readonly memory: SandboxMemoryInfo;
}

/** How memory_mb holds on this host. */
export interface SandboxMemoryInfo {
  /** `cgroup-v2` / `cgroup-v1`: each execution runs in its own memory cgroup; `per-process`: rlimits (and the V8 heap) only. */
  readonly mode: "cgroup-v2" | "cgroup-v1" | "per-process";
  /** One line, e.g. "per execution (cgroup v1: ...)" or "per process (RLIMIT_DATA); no cgroup: <why>". */
  readonly description: string;
}

/** One thing `checkSandbox` found wrong, and how to fix it. */
export interface SandboxProblem {
  readonly problem: string;
  readonly fix: string;
}

export interface SandboxCheck {
  readonly ok: boolean;
  readonly backend: SandboxBackend;
  /** False for the local backend: programs run with the host user's rights. */
  readonly isolated: boolean;
  /** One line for a log or a CLI: what works, or the first problem and its fix. */
  readonly summary: string;
  readonly problems: readonly SandboxProblem[];
  readonly details: Readonly<Record<string, string | number | boolean | undefined>>;
}

/**
 * Runs untrusted programs. `run` never throws: every failure comes back as a result with `error`
 * (Cloudflare codemode style).
 */
export interface SandboxExecutor {
  /** The backend in use; config.sandbox.backend (possibly `auto`) until `describeBackend()` has resolved. */
  readonly backend: SandboxBackend;
  /**
   * The executor's own folder on the host (the synthetic /etc, the workers' folders with their bridge
   * and egress sockets): programs the service starts on the host must not see it (HostConfinement.hide).
   */
  readonly runtimeFolder: string;
  /** Resolves `auto` (bubblewrap when a real sandbox starts, else deno) and says what the backend isolates. */
  describeBackend(): Promise<SandboxBackendInfo>;
  run(request: SandboxRequest): Promise<SandboxResult>;
  /**
   * Whether a script file (`SandboxRequest.entry`) of this language runs on the backend in use
   * (resolves `auto` first): bubblewrap and local run every language; deno runs javascript natively
   * and python in Pyodide, but no shell script file (it needs real programs). A request it cannot
   * run fails with SANDBOX_UNAVAILABLE and this reason, before anything starts.
   */
  supportsEntry(language: SandboxLanguage): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;
  /**
   * The command line that starts a long-lived server in the sandbox (a stdio MCP server; see
   * `SandboxServerRequest`), for the caller to spawn and stop. Bubblewrap only: deno and local answer
   * SANDBOX_UNAVAILABLE with the reason. Never throws.
   */
  startServer(request: SandboxServerRequest): Promise<SandboxServerLaunch>;
  /** Diagnoses the backend (tools installed, namespaces allowed) by starting a real sandbox. */
  check(): Promise<SandboxCheck>;
  /**
   * Starts workers for this shape of request ahead of time (e.g. when a thread is created); resolves
   * when they are ready. Fire and forget is fine: it never rejects.
   */
  prewarm(request: SandboxWarmRequest): Promise<void>;
  /** The thread's workspace under config.sandbox.workspaces_dir, created with the right owner. Throws on an unsafe id. */
  workspaceFor(threadId: string): string;
  /** Stops every idle worker and removes the executor's runtime folder. */
  close(): Promise<void>;
}
