/** Fixed paths inside the sandbox: the contract between the executor and the code it runs. */
export const sandboxPaths = {
  /** The thread's workspace, read-write; also the working directory and HOME. */
  workspace: "/mnt/user-data/workspace",
  /** The generated code API (config.code_execution.code_api_dir), read-only. */
  codeApi: "/mnt/code-api",
  /** The MCP bridge socket (HTTP/1.1 over a Unix socket); see THINKTANK_BRIDGE_SOCKET. */
  bridgeSocket: "/run/thinktank/bridge.sock",
  /** Private, size-limited scratch space. */
  tmp: "/tmp",
} as const;

/** Where the bridge socket's folder is mounted (the executor's own, read-only). */
export const sandboxBridgeDir = "/run/thinktank";

/** Sandbox paths a mount may not cover: the system, the executor's own mounts, the workspace. */
export const reservedSandboxPaths: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/proc",
  "/dev",
  "/tmp",
  "/run",
  "/sys",
  sandboxPaths.workspace,
];
