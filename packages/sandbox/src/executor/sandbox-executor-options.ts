import type { DenoRuntime } from "../host/runtime-packages.js";
import type { EgressProxyOptions } from "../network/egress-types.js";
import type { SandboxLogger } from "../network/run-egress.js";
import type { SandboxConfig } from "../request/resolve-limits.js";

export interface SandboxExecutorOptions {
  /** The validated configuration (its `sandbox` and `code_execution` sections). */
  readonly config: SandboxConfig;
  /** PATH-style list of folders where bwrap, prlimit and python3 are looked up (the entry point passes config.env.PATH). @default "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" */
  readonly searchPath?: string;
  /** Folder for the synthetic /etc and the workers' files; removed by `close()`. @default a new folder under os.tmpdir() */
  readonly runtimeDir?: string;
  /** The bubblewrap binary (a name looked up on `searchPath`, or a path). @default "bwrap" */
  readonly bwrapCommand?: string;
  /** The Node.js binary that runs JavaScript. @default process.execPath */
  readonly nodePath?: string;
  /** The Python interpreter (a name looked up on `searchPath`, or a path); its real binary and prefix are resolved. @default "python3" */
  readonly pythonCommand?: string;
  /** Who runs the sandbox when the host runs as root (RLIMIT_NPROC does not apply to root). @default { uid: 65534, gid: 65534 } (nobody) */
  readonly sandboxIds?: { readonly uid: number; readonly gid: number };
  /** The uid the host process runs as. @default process.getuid() */
  readonly hostUid?: number;
  /** Keys (workspace × language × mounts × limits) kept warm at once. @default 4 */
  readonly maxWarmKeys?: number;
  /** Idle warm workers of a key are stopped after this long without a run. @default 300,000 ms */
  readonly warmIdleMs?: number;
  /** Where the deno backend finds deno, Pyodide and just-bash. @default what `npm install` brought */
  readonly denoRuntime?: DenoRuntime;
  /**
   * Run each execution in its own memory cgroup where one is writable (memory_mb then bounds all its
   * processes together; rlimits stay inside). False: per process only. @default true
   */
  readonly memoryCgroups?: boolean;
  /** Where the executor logs: each connection through the egress proxy (allowed: info, refused: warn), and that the local backend does not enforce `network`. @default none */
  readonly logger?: SandboxLogger;
  /** The egress proxy's resolver, timeouts and bounds (tests pass a resolver that maps names to loopback addresses). @default EgressProxy's */
  readonly egress?: Omit<EgressProxyOptions, "allowedPrivate" | "onConnection" | "onOmitted">;
  /** Clock for durations, in milliseconds. @default performance.now */
  readonly now?: () => number;
}
