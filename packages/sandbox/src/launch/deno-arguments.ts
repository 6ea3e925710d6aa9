export interface DenoArgumentsInput {
  /** The bootstrap module (run as the main module). */
  readonly bootstrap: string;
  /** JSON settings handed to the bootstrap as its first argument. */
  readonly settings: string;
  /** V8's old-space ceiling in MiB. */
  readonly heapMb: number;
  /** Host paths the program may read (folders include everything below them). */
  readonly read: readonly string[];
  /** Host paths the program may write. */
  readonly write: readonly string[];
  /** Unix sockets the program may connect to (the bridge). */
  readonly unixSockets: readonly string[];
  /** TCP `host:port` addresses the program may connect to (the worker's egress proxy entrance). @default none */
  readonly tcpAddresses?: readonly string[];
  /** System information the runtime needs (`uid`, `gid`, ...). */
  readonly sys: readonly string[];
}

/**
 * `deno run` arguments that grant exactly the input's paths and sockets. Everything not granted is
 * refused without a prompt: environment, subprocesses (--allow-run), FFI, imports from the network,
 * any other file or address. No config file, lock file or package.json near the workspace is read.
 */
export function denoArguments(input: DenoArgumentsInput): string[] {
  const list = (paths: readonly string[]): string => [...new Set(paths)].join(",");
  const net = [...input.unixSockets.map((socket) => `unix:${socket}`), ...(input.tcpAddresses ?? [])];
  for (const entry of [...input.read, ...input.write, ...input.unixSockets]) {
    // Deno splits permission lists on commas: a path with one would widen or break the grant.
    if (entry.includes(",")) throw new Error(`a path given to the deno sandbox must not contain a comma: ${entry}`);
  }
  return [
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--no-remote",
    "--no-npm",
    "--cached-only",
    `--v8-flags=--max-old-space-size=${input.heapMb}`,
    `--allow-read=${list(input.read)}`,
    `--allow-write=${list(input.write)}`,
    ...(net.length > 0 ? [`--allow-net=${net.join(",")}`] : []),
    ...(input.sys.length > 0 ? [`--allow-sys=${input.sys.join(",")}`] : []),
    input.bootstrap,
    input.settings,
  ];
}
