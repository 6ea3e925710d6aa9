import type { ErrorCode } from "@thinktank/core";

/** The limits of a sandboxed server (config.mcp.sandbox for stdio MCP servers). */
export interface SandboxServerLimits {
  /** Memory in MiB: the server's processes together where a cgroup is writable, and each process (RLIMIT_DATA). */
  readonly memoryMb: number;
  /** Processes and threads inside its sandbox (RLIMIT_NPROC). */
  readonly maxProcesses: number;
}

/**
 * A long-lived program whose stdin and stdout are its interface (a stdio MCP server), to run in the
 * sandbox: `SandboxExecutor.startServer`. It gets no wall-clock limit: whoever spawns it stops it.
 */
export interface SandboxServerRequest {
  /**
   * A name looked up on the sandbox's PATH (node's and python's folders, then the system ones), else
   * on the host's search path (that folder is then mounted read-only too); or a path inside what the
   * sandbox mounts (relative to `cwd`).
   */
  readonly command: string;
  readonly args: readonly string[];
  /**
   * Its environment, over PATH, HOME, TMPDIR and LANG (and the proxy variables with `network`). It
   * reaches the server through a file in the sandbox's own folder, never a command line. Names must
   * be shell identifiers.
   */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Host folder mounted read-write at the workspace path (`/mnt/user-data/workspace`), the server's
   * HOME, kept between starts (npx's and uvx's caches live there). Made when missing (0700, the
   * sandbox user's); its parent must exist.
   */
  readonly homeDir: string;
  /** Host folder mounted read-only at its own path and made the working folder. @default the home */
  readonly cwd?: string;
  /** Host paths no server may see: covered where they fall inside `cwd`; a `cwd` inside one is refused. @default none */
  readonly hide?: readonly string[];
  /** Host patterns it may reach through the egress proxy (see `SandboxRequest.network`). @default none: no network */
  readonly network?: readonly string[];
  /** Who it runs for, in the egress log lines (e.g. `mcp github`). @default none */
  readonly networkLabel?: string;
  readonly limits: SandboxServerLimits;
}

/**
 * How to start a sandboxed server: spawn `command` with `args`, exactly `env` and `cwd`, stdin and
 * stdout as pipes; call `release` once it has exited (it removes the sandbox's folder, its cgroup
 * and its egress entrance; calling it again does nothing). Or why it cannot start.
 */
export type SandboxServerLaunch =
  | {
      readonly ok: true;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
      release(): void;
    }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };
