import fs from "node:fs";
import path from "node:path";
import type { ErrorCode } from "@thinktank/core";
import type { SandboxExecutor, SandboxLanguage, SandboxLimits, SandboxNetworkConnection, SandboxResult } from "../sandbox-types.js";
import { removeStaleFreshWorkspaces } from "../workspaces/fresh-workspace.js";

/** The runtimes of script tools (tools.json, registered tools). */
export type ScriptRuntime = "python" | "node" | "shell";

/**
 * One script tool call: the shape `SandboxedScriptCall` of @thinktank/tools has (this package does
 * not import the tools package, nor it this one; the agent wires the two).
 */
export interface SandboxScriptCall {
  /** The tool's name: the run's `networkLabel` (`tool <name>`) in the egress log. */
  readonly toolName: string;
  readonly runtime: ScriptRuntime;
  /** The script's real host path, inside `folder.hostDir`. */
  readonly scriptPath: string;
  /** The tool's folder (its skill's) on the host, mounted read-only at `sandboxDir`, e.g. `/mnt/skills/custom/<skill>`. */
  readonly folder: { readonly hostDir: string; readonly sandboxDir: string };
  /** Standard input (the arguments as JSON). */
  readonly input: string;
  /** The script's environment beside the sandbox's own PATH, HOME, TMPDIR and LANG. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Host patterns for the egress proxy (`SandboxRequest.network`). */
  readonly network: readonly string[];
  /** Standard output beyond this is `output-too-large`. */
  readonly maxStdoutBytes: number;
  /** How much of the end of standard error to keep. */
  readonly stderrTailBytes: number;
}

/**
 * How a call ended, in the tools package's terms (`SandboxedScriptOutcome`), with the connections the
 * script made through the egress proxy, allowed or refused, however it ended (`SandboxResult.network`,
 * and how many more were only counted), for the tools execution log.
 */
export type SandboxScriptOutcome = (
  | { readonly kind: "exited"; readonly exitCode: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderrTail: string }
  | { readonly kind: "timeout"; readonly stderrTail: string }
  | { readonly kind: "cancelled"; readonly stderrTail: string }
  | { readonly kind: "output-too-large"; readonly limit: number; readonly stderrTail: string }
  | { readonly kind: "sandbox-failed"; readonly code: ErrorCode; readonly message: string; readonly stderrTail: string }
) & { readonly network?: { readonly connections: readonly SandboxNetworkConnection[]; readonly omitted: number } };

/** Runs script tools in the sandbox (`SandboxedScriptRunner` of @thinktank/tools). */
export interface SandboxScriptRunner {
  /** Whether this runtime's scripts run on the executor's backend (deno runs no shell script), with why not. */
  supports(runtime: ScriptRuntime): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;
  /** Runs one call; never throws. */
  run(call: SandboxScriptCall): Promise<SandboxScriptOutcome>;
}

export interface SandboxScriptRunnerOptions {
  /**
   * Parent of the per-call working folders: each call runs in a new, empty folder of its own under it
   * (made when its warm worker starts, removed when the call ends); folders a crashed process left
   * are removed when the runner is made. The agent uses `<sandbox.workspaces_dir>/.script-runs`.
   */
  readonly workRoot: string;
  /** Limits of script runs (memory, processes, CPU, file size, /tmp). @default the executor's, from config.sandbox */
  readonly limits?: Partial<Pick<SandboxLimits, "memoryMb" | "maxProcesses" | "cpuSeconds" | "maxFileMb" | "tmpMb">>;
  /** Bytes of standard error kept before its end is taken. @default 65,536 */
  readonly stderrBytes?: number;
}

const languages: Readonly<Record<ScriptRuntime, SandboxLanguage>> = { python: "python", node: "javascript", shell: "shell" };

/**
 * Script tools in the sandbox: each call runs its script as a file (`SandboxRequest.entry`) with the
 * tool's folder read-only at its sandbox path, a fresh working folder, the input on stdin, the
 * declared environment and hosts, the timeout and the output cap; the sandbox's result becomes the
 * outcome the tools package interprets as it does a host run.
 */
export function createSandboxScriptRunner(executor: SandboxExecutor, options: SandboxScriptRunnerOptions): SandboxScriptRunner {
  // Searchable, not listable: a script finds no other call's folder (each is 0700 besides).
  fs.mkdirSync(options.workRoot, { recursive: true, mode: 0o711 });
  removeStaleFreshWorkspaces(options.workRoot);
  const stderrBytes = options.stderrBytes ?? 65_536;
  /** Why untrusted scripts cannot run on this executor at all: `sandbox.backend: local` isolates nothing. */
  const notIsolated = async (): Promise<string | undefined> => {
    const info = await executor.describeBackend();
    return info.isolated ? undefined : `sandbox.backend is ${info.backend}, which isolates nothing, and untrusted scripts never run unisolated on the host; use bubblewrap or deno`;
  };
  return {
    async supports(runtime) {
      const problem = await notIsolated();
      return problem ? { ok: false, reason: problem } : executor.supportsEntry(languages[runtime]);
    },
    async run(call) {
      const problem = await notIsolated();
      if (problem) return { kind: "sandbox-failed", code: "SANDBOX_UNAVAILABLE", message: `cannot run: ${problem}`, stderrTail: "" };
      const entry = entryPath(call);
      if ("problem" in entry) return { kind: "sandbox-failed", code: "INVALID_PATH", message: entry.problem, stderrTail: "" };
      const result = await executor.run({
        language: languages[call.runtime],
        entry: entry.path,
        workspaceDir: options.workRoot,
        freshWorkspace: true,
        mounts: [{ hostPath: call.folder.hostDir, sandboxPath: call.folder.sandboxDir }],
        env: call.env,
        stdin: call.input,
        timeoutMs: call.timeoutMs,
        network: call.network,
        networkLabel: `tool ${call.toolName}`,
        ...(call.signal ? { signal: call.signal } : {}),
        limits: {
          ...options.limits,
          maxStdoutBytes: call.maxStdoutBytes,
          maxStderrBytes: stderrBytes,
          // Past both caps the script is stopped: a flood cannot run on until its timeout.
          killAfterOutputBytes: call.maxStdoutBytes + stderrBytes + 1,
        },
      });
      return outcomeOf(result, call);
    },
  };
}

/** The script's sandbox path: its place in the tool's folder, under the folder's sandbox path. */
function entryPath(call: SandboxScriptCall): { path: string } | { problem: string } {
  let folder: string;
  try {
    folder = fs.realpathSync(call.folder.hostDir);
  } catch {
    return { problem: `the tool's folder ${call.folder.hostDir} does not exist` };
  }
  const relative = path.relative(folder, call.scriptPath);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return { problem: `the script ${call.scriptPath} is not inside the tool's folder ${folder}` };
  return { path: path.posix.join(call.folder.sandboxDir, ...relative.split(path.sep)) };
}

function outcomeOf(result: SandboxResult, call: SandboxScriptCall): SandboxScriptOutcome {
  const stderrTail = tailOf(result.stderr, call.stderrTailBytes);
  // The run's egress connections, whatever its ending: a refused request is worth seeing most when the call failed.
  const network = result.network?.length || result.networkOmitted ? { network: { connections: result.network ?? [], omitted: result.networkOmitted ?? 0 } } : {};
  const code = result.error?.code;
  if (code === "SANDBOX_TIMEOUT") return { kind: "timeout", stderrTail, ...network };
  if (code === "CANCELLED") return { kind: "cancelled", stderrTail, ...network };
  if (result.stdoutTruncated) return { kind: "output-too-large", limit: call.maxStdoutBytes, stderrTail, ...network };
  if (result.error) return { kind: "sandbox-failed", code: result.error.code, message: `failed in the sandbox: ${result.error.message}`, stderrTail, ...network };
  return { kind: "exited", exitCode: result.exitCode, signal: (result.signal as NodeJS.Signals | undefined) ?? null, stdout: result.stdout, stderrTail, ...network };
}

/** The last `bytes` of a text (whole characters), as the host run keeps stderr's end. */
function tailOf(text: string, bytes: number): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= bytes) return text;
  return buffer.subarray(buffer.length - bytes).toString("utf8").replace(/^\uFFFD+/, "");
}
