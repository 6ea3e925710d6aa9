import { PassThrough, Writable } from "node:stream";
import type { CliIo } from "../../src/cli-command.js";
import { runCli } from "../../src/run-cli.js";

/** What a captured CLI run printed, and its exit code. */
export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunCapturedOptions {
  readonly cwd: string;
  /** The environment the command sees. @default PATH and HOME of this process */
  readonly env?: CliIo["env"];
  /** Fed to stdin, then closed. @default empty */
  readonly input?: string;
  /** Make stderr and stdin look like a terminal (progress output, interactive prompts). @default false */
  readonly tty?: boolean;
}

/** Runs `thinktank <argv>` in this process with its output captured. */
export async function runCaptured(argv: string[], options: RunCapturedOptions): Promise<CapturedRun> {
  const stdout = textCollector(false);
  const stderr = textCollector(options.tty ?? false);
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (options.tty) stdin.isTTY = true;
  stdin.end(options.input ?? "");
  const env = options.env ?? { PATH: process.env.PATH, HOME: process.env.HOME };
  const code = await runCli(argv, { stdout, stderr, stdin, env, cwd: options.cwd });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function textCollector(isTTY: boolean): Writable & { isTTY?: boolean; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  }) as Writable & { isTTY?: boolean; text: () => string };
  if (isTTY) stream.isTTY = true;
  stream.text = () => Buffer.concat(chunks).toString("utf8");
  return stream;
}
