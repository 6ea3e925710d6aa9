/**
 * The shapes of running plugin hooks (Claude Code's hook contract, for the events this agent has).
 * docs/plugins.md, "Hooks", is the reference.
 */

/** The hook events this agent fires. */
export const hookEvents = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop"] as const;
export type HookEventName = (typeof hookEvents)[number];

/** One command hook of an enabled plugin, ready to run. */
export interface HookCommand {
  readonly plugin: string;
  /** The plugin's installed folder on the host (mounted read-only at CLAUDE_PLUGIN_ROOT). */
  readonly pluginRoot: string;
  readonly event: HookEventName;
  /** The matcher group's matcher as written (absent: every tool / source). */
  readonly matcher?: string;
  /** The command line as written (`${CLAUDE_PLUGIN_ROOT}` unexpanded: the runner knows the path). */
  readonly command: string;
  /** The hook's own `timeout` in seconds, else 60 (Claude Code's default). */
  readonly timeoutSeconds: number;
  /** The hooks file it came from, relative to the plugin root. */
  readonly file: string;
}

/** What a runner is asked to do: one hook command, its input JSON on stdin. */
export interface HookCommandRequest {
  readonly plugin: string;
  readonly pluginRoot: string;
  readonly command: string;
  /** Claude Code's input JSON for the event. */
  readonly stdin: string;
  readonly timeoutMs: number;
  /** The run's signal: a cancelled run stops its hooks. */
  readonly signal?: AbortSignal;
}

/** How a hook command ended. A runner never throws: a failure to run is `error`. */
export interface HookCommandResult {
  /** Null when it did not exit by itself (timeout, cancel, could not start). */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Set when it could not run or was stopped: the sandbox's code and message. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * Runs hook commands. The agent gives one over its sandbox executor (the plugin's folder read-only
 * at CLAUDE_PLUGIN_ROOT, the thread's workspace, no network); this package never starts a program.
 */
export interface HookCommandRunner {
  run(request: HookCommandRequest): Promise<HookCommandResult>;
}

/**
 * What one hook's result means. `ok`: nothing to act on beyond context or an allow; `block`: exit 2
 * or a block/deny decision; `stop`: `continue: false`; `error` and `timeout`: non-blocking failures.
 */
export type HookOutcomeKind = "ok" | "block" | "stop" | "error" | "timeout";

/** One hook's result read by Claude Code's rules for its event. */
export interface HookVerdict {
  readonly outcome: HookOutcomeKind;
  /** Why it blocked (stderr on exit 2, else the JSON's reason), or what went wrong (error, timeout). */
  readonly reason?: string;
  /** Context for the model: plain stdout (SessionStart, UserPromptSubmit) or `additionalContext`. */
  readonly context?: string;
  /** PreToolUse: the permission decision (`decision: approve|block` of older hooks mapped). */
  readonly decision?: "allow" | "deny" | "ask";
  /** PreToolUse: `updatedInput`, in Claude Code's field names. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** With `continue: false`: what the user is told. */
  readonly stopReason?: string;
  /** `systemMessage`: shown to the user (the run's events), never to the model. */
  readonly systemMessage?: string;
  /** `suppressOutput`: the hook's stdout is left out of the events. */
  readonly suppressOutput?: boolean;
  /** A note about the output itself (JSON for another event, context cut short). */
  readonly note?: string;
}

/**
 * One hook run, as the run's events and the log show it (`custom` stream mode:
 * `{ type: "hook", ... }`; docs/plugins.md, "Hooks").
 */
export interface HookRunRecord {
  readonly type: "hook";
  readonly event: HookEventName;
  readonly plugin: string;
  readonly command: string;
  readonly outcome: HookOutcomeKind;
  /** Wall-clock milliseconds, from asking the runner to its answer. */
  readonly ms: number;
  readonly exit_code: number | null;
  readonly tool?: string;
  readonly tool_use_id?: string;
  /** SubagentStop: the sub-agent's type (its identity). */
  readonly agent_type?: string;
  readonly decision?: "allow" | "deny" | "ask";
  readonly reason?: string;
  readonly updated_input?: true;
  readonly context?: true;
  readonly stop_reason?: string;
  readonly system_message?: string;
  readonly note?: string;
  /** The first 2,000 characters of stdout (unless suppressOutput) and stderr. */
  readonly stdout?: string;
  readonly stderr?: string;
}
