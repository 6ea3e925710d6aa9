import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import { findExecutable, ThinktankError } from "@thinktank/core";
import type { ToolRuntime } from "../registry/tool-definition.js";

const execFileAsync = promisify(execFile);

/** How a runtime's scripts are started: `<command> <args...> <script>`. */
export interface Interpreter {
  readonly command: string;
  readonly args: readonly string[];
}

export interface InterpreterResolverOptions {
  /** The PATH searched for python3 and bash (the entry point passes the environment's). */
  readonly searchPath: string;
  /** Commands to use instead of the defaults, per runtime (a name looked up on `searchPath`, or an absolute path). */
  readonly overrides?: Partial<Readonly<Record<ToolRuntime, Interpreter>>>;
  /** The node binary. @default process.execPath */
  readonly nodePath?: string;
}

/**
 * Finds each runtime's interpreter once and remembers it: python → python3 (a version manager's
 * shim such as pyenv's is resolved to the real binary once, so calls do not pay for the shim),
 * node → this Node.js, shell → bash (sh when there is no bash).
 */
export class InterpreterResolver {
  private readonly resolved = new Map<ToolRuntime, Promise<Interpreter>>();

  constructor(private readonly options: InterpreterResolverOptions) {}

  /** The interpreter of `runtime`; TOOL_EXECUTION_ERROR when it is not installed. */
  resolve(runtime: ToolRuntime): Promise<Interpreter> {
    let found = this.resolved.get(runtime);
    if (!found) {
      found = this.find(runtime);
      // A failure is not remembered: installing the interpreter fixes the next call.
      found.catch(() => this.resolved.delete(runtime));
      this.resolved.set(runtime, found);
    }
    return found;
  }

  private async find(runtime: ToolRuntime): Promise<Interpreter> {
    const override = this.options.overrides?.[runtime];
    if (override) return { command: this.locate(override.command) ?? missing(runtime, override.command), args: override.args };
    switch (runtime) {
      case "node":
        return { command: this.options.nodePath ?? process.execPath, args: [] };
      case "shell": {
        const shell = this.locate("bash") ?? this.locate("sh") ?? missing(runtime, "bash");
        return { command: shell, args: [] };
      }
      case "python": {
        const python = this.locate("python3") ?? missing(runtime, "python3");
        return { command: await realPython(python, this.options.searchPath), args: [] };
      }
    }
  }

  private locate(command: string): string | undefined {
    return findExecutable(command, this.options.searchPath, { realPath: false });
  }
}

/** The binary behind `python3` when it is a script (a version manager's shim); the path itself otherwise. */
async function realPython(python: string, searchPath: string): Promise<string> {
  if (!startsWithShebang(python)) return python;
  try {
    const { stdout } = await execFileAsync(python, ["-c", "import sys; print(sys.executable)"], { timeout: 30_000, env: { PATH: searchPath } });
    const executable = stdout.trim();
    return executable && findExecutable(executable, undefined, { realPath: false }) ? executable : python;
  } catch {
    return python;
  }
}

function startsWithShebang(file: string): boolean {
  const buffer = Buffer.alloc(2);
  let handle: number | undefined;
  try {
    handle = fs.openSync(file, "r");
    fs.readSync(handle, buffer, 0, 2, 0);
    return buffer.toString("latin1") === "#!";
  } catch {
    return false;
  } finally {
    if (handle !== undefined) fs.closeSync(handle);
  }
}


function missing(runtime: ToolRuntime, command: string): never {
  throw new ThinktankError("TOOL_EXECUTION_ERROR", `the ${runtime} runtime needs '${command}', which is not installed (or not on the PATH the server was started with)`, {
    details: { runtime, command },
  });
}
