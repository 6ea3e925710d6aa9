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
  /** Made of subcommands (createSubcommandGroup): it answers `--help` for each of them itself. */
  readonly group?: boolean;
  run(args: string[], io: CliIo): Promise<number>;
}

/** `--help` or `-h` among the options (before a `--`, after which everything is an argument). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}
