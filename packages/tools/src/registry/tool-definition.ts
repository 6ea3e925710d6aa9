/** The interpreters a registered script can run under. */
export const toolRuntimes = ["python", "node", "shell"] as const;
export type ToolRuntime = (typeof toolRuntimes)[number];

/**
 * A registered tool with its defaults applied, as the registry lists it and the executor runs it.
 * Field names mirror the `tools` entries of extensions_config.json (snake_case).
 */
export interface ToolDefinition {
  readonly name: string;
  /** What the model chooses by: what the tool does, and when to prefer another tool. */
  readonly description: string;
  /** JSON Schema of the arguments (a `type: "object"` schema). */
  readonly input_schema: Readonly<Record<string, unknown>>;
  /** JSON Schema of the script's output; absent means any JSON value. */
  readonly output_schema?: Readonly<Record<string, unknown>>;
  readonly runtime: ToolRuntime;
  /** File name of the script under the tools folder (config.tools.scripts_dir). */
  readonly script: string;
  /** Seconds before the script's process tree is killed: the entry's, else config.tools.default_timeout_seconds. */
  readonly timeout: number;
  /** Whether calls may run at the same time as other calls of the same turn. @default false */
  readonly parallel_capable: boolean;
  /** @default true */
  readonly enabled: boolean;
  /** Extra environment variables for the script; `${VAR}` placeholders resolve from the server's environment at call time. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Hosts the script may reach from the sandbox through the egress proxy: `host`, `host:port`,
   * `*.domain[:port]` (no port: 80 and 443). A trusted script on the host keeps the host's network. @default none
   */
  readonly network?: readonly string[];
  readonly created_at?: string;
  readonly updated_at?: string;
}

/** A folder a tool's script comes with (its skill's), on the host and where the sandbox shows it. */
export interface ToolFolder {
  /** Absolute host path. */
  readonly hostDir: string;
  /** Absolute sandbox path, e.g. `/mnt/skills/custom/<skill>`. */
  readonly sandboxDir: string;
}

/** A definition plus where its script is: what the executor needs (skill-scoped tools bring their own folder). */
export interface RunnableTool extends ToolDefinition {
  /** Absolute path of the script. */
  readonly scriptPath: string;
  /**
   * Whether the script runs on the host (trusted) or in the sandbox (untrusted). Registered tools are
   * always trusted; a skill's tools have the skill's trust, which only an administrator grants.
   */
  readonly trusted: boolean;
  /** The folder the sandbox mounts read-only for an untrusted tool (its skill's), holding `scriptPath`. */
  readonly folder?: ToolFolder;
}

/** One reason a definition or registry entry was refused, with the path of the bad field. */
export interface ToolProblem {
  /** Readable path, e.g. `input_schema.properties.name.type` (for a registry entry it starts with `tools.<name>`). */
  readonly path: string;
  readonly message: string;
}
