import { expandDeep } from "@thinktank/core";

/** The PATH scripts get when the server's environment names none. */
export const defaultScriptPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface ScriptEnvironmentOptions {
  /** PATH for the script (the server's PATH is not a secret; everything else of its environment is left out). @default none: the sandbox sets its own */
  readonly searchPath?: string;
  /** The call's private folder: HOME, TMPDIR and the working directory. @default none: the sandbox sets its own */
  readonly workDir?: string;
  readonly toolName: string;
  /** The tool's own `env` entry; `${VAR}` placeholders resolve against `variables`. */
  readonly toolEnv?: Readonly<Record<string, string>>;
  /** The server's environment, for the tool's placeholders only. */
  readonly variables: Readonly<Record<string, string | undefined>>;
}

/**
 * The whole environment of a script: a clean one, never the server's (which holds API keys),
 * plus what the tool's registry entry asks for by name. Placeholders naming unset variables stay
 * as written and are reported in `missing`.
 */
export function scriptEnvironment(options: ScriptEnvironmentOptions): { env: Record<string, string>; missing: readonly string[] } {
  const env: Record<string, string> = {
    ...(options.searchPath !== undefined ? { PATH: options.searchPath } : {}),
    ...(options.workDir !== undefined ? { HOME: options.workDir, TMPDIR: options.workDir } : {}),
    LANG: "C.UTF-8",
    PYTHONUNBUFFERED: "1",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
    THINKTANK_TOOL_NAME: options.toolName,
  };
  if (!options.toolEnv) return { env, missing: [] };
  const expanded = expandDeep(options.toolEnv, options.variables);
  for (const [name, value] of Object.entries(expanded.value)) env[name] = value;
  return { env, missing: expanded.missing };
}
