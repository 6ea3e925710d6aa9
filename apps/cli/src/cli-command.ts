import type { Writable } from "node:stream";

/** What a command may touch: its streams, the environment and the working folder. Tests pass their own. */
export interface CliIo {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** One top-level command (`skills`, `mcp`, ...). `run` gets the arguments after its name and returns the exit code. */
export interface CliCommand {
  readonly name: string;
  readonly summary: string;
  /** Lines of usage shown by `thinktank help` and on a usage error. */
  readonly usage: readonly string[];
  run(args: string[], io: CliIo): Promise<number>;
}
