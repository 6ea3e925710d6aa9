/**
 * A skill-scoped script tool in the tools registry's format (extensions_config.json `tools`
 * entries, snake_case), with its script resolved inside the skill's scripts/ folder.
 * The same shape as `RunnableTool` of @thinktank/tools.
 */
export interface ScopedScriptTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
  readonly output_schema?: Readonly<Record<string, unknown>>;
  readonly runtime: "python" | "node" | "shell";
  /** The script as written in tools.json, relative to the skill's scripts/ folder. */
  readonly script: string;
  /** Seconds. */
  readonly timeout: number;
  readonly parallel_capable: boolean;
  readonly enabled: boolean;
  readonly env?: Readonly<Record<string, string>>;
  /** Hosts the script may reach from the sandbox (`host`, `host:port`, `*.domain[:port]`). @default none */
  readonly network?: readonly string[];
  /** Absolute path of the script. */
  readonly scriptPath: string;
  /** The skill's trust (`Skill.trusted`): trusted scripts run on the host, untrusted ones only in the sandbox. */
  readonly trusted: boolean;
  /** The skill's folder on the host and where the sandbox shows it (`Skill.containerDir`), mounted read-only for an untrusted script. */
  readonly folder?: { readonly hostDir: string; readonly sandboxDir: string };
}

/** The answer of a script tool: the tools package's ToolResponse. */
export type ScriptToolResponse =
  | { readonly status: "success"; readonly data: unknown }
  | { readonly status: "error"; readonly error: { readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> } };

/**
 * Runs script tools the caller holds the definition of: `ToolExecutor` of @thinktank/tools fits
 * (its `run(tool, args, options)`: arguments checked against input_schema, JSON on stdin, output
 * checked against output_schema, timeout, never throws; `availability(tool)`: whether it can run here,
 * an untrusted one only in a sandbox that runs its runtime).
 */
export interface ScriptToolRunner {
  run(tool: ScopedScriptTool, args: unknown, options?: { signal?: AbortSignal; source?: string; threadId?: string; runId?: string }): Promise<ScriptToolResponse>;
  availability(tool: ScopedScriptTool): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;
}
