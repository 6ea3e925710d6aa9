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

/** One connection a sandboxed script made through the egress proxy, allowed or refused (`SandboxNetworkConnection` of @thinktank/sandbox). */
export interface ScriptNetworkConnection {
  /** `connect` (a tunnel, e.g. HTTPS) or `http` (one absolute-form request). */
  readonly kind: "connect" | "http";
  readonly host: string;
  readonly port: number;
  /** The address the proxy connected to, or the one it refused. */
  readonly address?: string;
  readonly allowed: boolean;
  /** The pattern that allowed it, or the refusal in one line. */
  readonly reason: string;
  /** The proxy's answer: 200 for an open tunnel, the target's status for a request, 4xx/5xx from the proxy itself. */
  readonly status: number;
  readonly bytesSent: number;
  readonly bytesReceived: number;
  readonly ms: number;
}

/** A sandboxed run's egress: the connections listed, and how many more were only counted. */
export interface ScriptNetwork {
  readonly connections: readonly ScriptNetworkConnection[];
  readonly omitted: number;
}

/**
 * How a sandboxed script run ended: the host's outcomes (`runScript`), plus the sandbox's own
 * failures (a limit, the sandbox busy or unavailable), with the sandbox's code and message; and,
 * however it ended, the connections it made through the egress proxy (absent: none), which the
 * execution log records.
 */
export type SandboxedScriptOutcome = (ScriptOutcome | { readonly kind: "sandbox-failed"; readonly code: ErrorCode; readonly message: string; readonly stderrTail: string }) & {
  readonly network?: ScriptNetwork;
};

/** Runs untrusted script tools in the sandbox. Never throws: every ending is an outcome. */
export interface SandboxedScriptRunner {
  /** Whether this runtime's scripts run in the sandbox here (the deno backend runs no shell script), with why not. */
  supports(runtime: ToolRuntime): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;
  run(call: SandboxedScriptCall): Promise<SandboxedScriptOutcome>;
}
