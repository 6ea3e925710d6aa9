/** Whether stdio servers marked `sandbox: true` can run here, and why not. */
export type StdioSandboxAvailability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** A stdio server to start in the sandbox: its entry resolved (placeholders expanded, in memory only). */
export interface SandboxedStdioServer {
  /** The server's name in the manager (`github`, `<plugin>:<server>`): its persistent home is named after it. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Exactly the entry's own `env` (no host variable: the sandbox gives PATH, HOME, TMPDIR and LANG). */
  readonly env: Readonly<Record<string, string>>;
  /** Mounted read-only and made the working folder. @default its home */
  readonly cwd?: string;
  /** Host patterns it may reach through the egress proxy (the entry's `network`). */
  readonly network: readonly string[];
}

/** The command line to spawn instead (with exactly `env` and `cwd`), and `release` for once it has exited; or why it cannot start. */
export type SandboxedStdioLaunch =
  | {
      readonly ok: true;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
      /** Undoes what the launch prepared (the sandbox's folder, cgroup and egress entrance); safe to call more than once. */
      release(): void;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * How the manager runs stdio servers marked `sandbox: true` (McpManagerOptions.stdioSandbox).
 * `@thinktank/sandbox`'s `createStdioServerSandbox` is the implementation; this package does not
 * import it (the agent and the CLI wire them). Without one such a server is unavailable: it never
 * runs on the host instead.
 */
export interface StdioSandbox {
  /** Whether servers can run sandboxed on this host (not on the deno backend), and why not; the same answer every time. */
  availability(): Promise<StdioSandboxAvailability>;
  /** Prepares one start of a server. Never throws. */
  launch(server: SandboxedStdioServer): Promise<SandboxedStdioLaunch>;
}
