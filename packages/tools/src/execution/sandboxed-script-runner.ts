import type { ErrorCode } from "@thinktank/core";
import type { ToolFolder, ToolRuntime } from "../registry/tool-definition.js";
import type { ScriptOutcome } from "./run-script.js";

/**
 * One call of an untrusted script tool, as `ToolExecutor` hands it to the sandbox. Implemented by
 * @thinktank/sandbox (`createSandboxScriptRunner`); the agent wires the two (this package does not
 * import the sandbox).
 */
export interface SandboxedScriptCall {
  /** The tool's name, for the sandbox's logs (its network connections). */
  readonly toolName: string;
  readonly runtime: ToolRuntime;
  /** The script's real host path: a file under `folder.hostDir`. */
  readonly scriptPath: string;
  /** The tool's folder (its skill's) on the host, and where it appears, read-only, in the sandbox. */
  readonly folder: ToolFolder;
  /** The arguments as JSON text: the script's standard input. */
  readonly input: string;
  /** What the script gets besides the sandbox's own PATH, HOME, TMPDIR and LANG. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Aborting stops the script and everything it started; the call answers `cancelled`. */
  readonly signal?: AbortSignal;
  /** The hosts the tool declared (`network`), for the egress proxy; none: no network. */
  readonly network: readonly string[];
  /** Standard output beyond this fails the call (`output-too-large`). */
  readonly maxStdoutBytes: number;
  /** How much of the end of standard error to keep. */
  readonly stderrTailBytes: number;
}

/**
 * How a sandboxed script run ended: the host's outcomes (`runScript`), plus the sandbox's own
 * failures (a limit, the sandbox busy or unavailable), with the sandbox's code and message.
 */
export type SandboxedScriptOutcome = ScriptOutcome | { readonly kind: "sandbox-failed"; readonly code: ErrorCode; readonly message: string; readonly stderrTail: string };

/** Runs untrusted script tools in the sandbox. Never throws: every ending is an outcome. */
export interface SandboxedScriptRunner {
  /** Whether this runtime's scripts run in the sandbox here (the deno backend runs no shell script), with why not. */
  supports(runtime: ToolRuntime): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;
  run(call: SandboxedScriptCall): Promise<SandboxedScriptOutcome>;
}
