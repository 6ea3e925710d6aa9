import fs from "node:fs";
import type { AgentProblem } from "./agent-types.js";
import { parseAgent, type AgentRefusalCode, type ParseAgentResult } from "./parse-agent.js";

/** An agent file larger than this is refused (listing reads whole files; the body becomes a system prompt). 256 KiB. */
export const maxAgentFileBytes = 256 * 1024;

export interface ReadAgentFileOptions {
  /** Follow a symbolic link (a plugin folder the plugin reader already checked); the project's and users' folders never do. @default false */
  readonly followLinks?: boolean;
}

/**
 * Reads and parses one agent file (see parseAgent). A file that cannot be read, is not a regular
 * file (a link is not followed unless asked) or is larger than maxAgentFileBytes is an error
 * problem. `relative` names the file in problems and in the result.
 */
export function readAgentFile(absolute: string, relative: string, options: ReadAgentFileOptions = {}): ParseAgentResult {
  const refuse = (message: string, code: AgentRefusalCode = "INVALID_AGENT"): ParseAgentResult => ({ ok: false, code, problem: { severity: "error", file: relative, message } satisfies AgentProblem });
  let text: string;
  try {
    const descriptor = fs.openSync(absolute, fs.constants.O_RDONLY | (options.followLinks ? 0 : fs.constants.O_NOFOLLOW));
    try {
      const stat = fs.fstatSync(descriptor);
      if (!stat.isFile()) return refuse("is not a regular file");
      if (stat.size > maxAgentFileBytes) return refuse(`is ${stat.size} bytes, more than an agent file may be (${maxAgentFileBytes})`, "FILE_TOO_LARGE");
      const buffer = Buffer.alloc(stat.size);
      const read = fs.readSync(descriptor, buffer, 0, stat.size, 0);
      text = buffer.subarray(0, read).toString("utf8");
    } finally {
      fs.closeSync(descriptor);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(code === "ELOOP" ? "is a symbolic link; agent files are read only as regular files" : `cannot be read (${code ?? (error as Error).message})`);
  }
  return parseAgent(text, { file: relative });
}
