import type { ErrorCode } from "@thinktank/core";
import type { InputRequiredHandler, SearchDetail } from "@thinktank/mcp";
import type { ReplaySummary } from "./replay/call-replay.js";

/** The languages execute_code takes. TypeScript and JavaScript are bundled with esbuild on the host. */
export type CodeLanguage = "typescript" | "javascript" | "python";

export const codeLanguages: readonly CodeLanguage[] = ["typescript", "javascript", "python"];

/** One server as list_servers shows it: no schemas, just enough to decide where to search. */
export interface ServerSummary {
  readonly name: string;
  readonly description?: string;
  /** "stdio" | "sse" | "http" for MCP servers; other sources name their own (e.g. "script"). */
  readonly transport: string;
  /** "connected", "idle" (not started yet; connects on first use), "connecting" or "unavailable". */
  readonly status: string;
  /** Tools known for the server (live, or from the disk cache); absent when never listed. */
  readonly tool_count?: number;
  /** Why the server is unavailable. */
  readonly reason?: string;
  /** `PROTOCOL_UNSUPPORTED`: it speaks neither MCP era (2026-07-28, 2025-11-25); `versions_tried` says what was tried. */
  readonly code?: string;
  readonly versions_tried?: readonly string[];
}

export interface SearchToolsInput {
  /** What the tool should do, in plain words. May be empty when `server` is given (lists its tools). */
  readonly query: string;
  readonly server?: string;
  /** @default "name" */
  readonly detail?: SearchDetail;
  /** @default config.search.default_limit (capped at config.search.max_limit) */
  readonly limit?: number;
}

/** A search hit as the model sees it (snake_case like the rest of the tool output). */
export interface SearchToolsHit {
  readonly server: string;
  readonly name: string;
  readonly score: number;
  readonly title?: string;
  readonly description?: string;
  readonly input_schema?: unknown;
  readonly output_schema?: unknown;
  /** The TypeScript wrapper as the sandbox sees it (detail "full"). */
  readonly wrapper_path?: string;
  /** `import { fn } from "..."` for TypeScript (detail "full"). */
  readonly typescript_import?: string;
  /** `from servers.x import fn` for Python (detail "full"). */
  readonly python_import?: string;
}

export interface ExecuteCodeInput {
  readonly code: string;
  /** @default "typescript" */
  readonly language?: CodeLanguage;
  /** Seconds; capped at config.code_execution.max_timeout_seconds. @default config.code_execution.timeout_seconds */
  readonly timeout?: number;
}

/** Where a program runs: a thread's workspace (by id, or an explicit host folder). */
export interface ExecutionPlace {
  /** The thread whose workspace the program gets (created on first use). */
  readonly threadId?: string;
  /** An explicit host folder for the workspace (wins over threadId); must exist and be writable by the sandbox user. */
  readonly workspaceDir?: string;
  /** Stops the program (and its pending tool calls) early. */
  readonly signal?: AbortSignal;
  /**
   * Whom the program runs for (the run's owner, a caller's id): its tool calls use that user's
   * MCP sessions and sign-ins, and may call their own servers (`~<name>`), whose typed wrappers
   * it alone gets (mounted at /mnt/my-code-api). @default the operator
   */
  readonly userId?: string;
  /**
   * The servers this place may reach (an assistant's MCP servers): list_servers and search_tools
   * show only these, and the program's bridge answers any other as unknown. @default every server
   */
  readonly servers?: (server: string) => boolean;
}

/** One tool call a program made through the bridge (the audit trail). */
export interface ToolCallRecord {
  /** `<server>.<tool>`. */
  readonly tool: string;
  /** "ok": the tool answered; "error": the tool answered isError, or the bridge refused or failed the call. */
  readonly status: "ok" | "error";
  /** Milliseconds from the bridge receiving the call to answering it. */
  readonly ms: number;
  /** Answered from the record of the execution before a pause for input (not called again). */
  readonly replayed?: true;
  /** What went wrong: the bridge's error code (or TOOL_ERROR) and a message. */
  readonly error?: { readonly code: string; readonly message: string };
}

export interface ExecuteCodeResult {
  /** The program's exit code; null when it was stopped (timeout, output flood) or could not run. */
  readonly exit_code: number | null;
  /** Truncated at config.code_execution.max_stdout_bytes with a visible marker. */
  readonly stdout: string;
  /** Truncated at config.code_execution.max_stderr_bytes with a visible marker. */
  readonly stderr: string;
  readonly duration_ms: number;
  readonly tools_called: readonly ToolCallRecord[];
  /** Calls left out of tools_called (a program that made very many). */
  readonly tools_called_omitted?: number;
  /** A run resumed after a pause for input: the calls answered from the record of the one before, and where the program went another way. */
  readonly replay?: ReplaySummary;
  /** Set when the run did not complete normally: invalid input, a build error, a timeout, a limit, no sandbox. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/**
 * A person to ask when a tool the program calls answers `input_required` (execute_code in an agent
 * run). The execution pauses: it ends, and executeCode rethrows what `onInputRequired` threw (the
 * run's interrupt). On resume the same program runs again; the calls it made before the pause are
 * answered from their record (same server, tool and arguments in the same order), so their side
 * effects happen once, and the call that asked gets the answer (docs/mcp-manager.md).
 */
export interface ExecutionAsk {
  /** Answers one round; throws to pause (the agent's LangGraph interrupt). */
  readonly onInputRequired: InputRequiredHandler;
  /** Whether what onInputRequired threw pauses the execution. @default anything but a ThinktankError (which fails the call instead) */
  readonly pauses?: (error: unknown) => boolean;
  /** Names this execution across a pause and its resume (thread, tool call, program). @default none: a resumed program makes every call again */
  readonly replayKey?: string;
}
