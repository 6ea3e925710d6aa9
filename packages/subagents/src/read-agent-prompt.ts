import fs from "node:fs/promises";
import { parseFrontmatter, ThinktankError } from "@thinktank/core";
import type { AgentDefinition } from "./agent-types.js";
import { builtinAgentPrompt } from "./builtin-agents.js";
import { maxAgentFileBytes } from "./read-agent-file.js";

/**
 * The agent's system prompt: the body of its file (after the frontmatter), read when it runs so
 * an edit applies to the next delegation; for a built-in, its built-in prompt. Bounded: at most
 * maxAgentFileBytes are read (a file grown past it since it was listed is cut, with a note).
 * AGENT_NOT_FOUND when the file is gone or unreadable (it was removed since the snapshot).
 */
export async function readAgentPrompt(agent: AgentDefinition): Promise<string> {
  const builtin = builtinAgentPrompt(agent.identity);
  if (builtin !== undefined) return builtin;
  if (agent.file === undefined) throw new ThinktankError("AGENT_NOT_FOUND", `agent ${agent.identity} has no file to read its prompt from`);
  let text: string;
  let cut = false;
  try {
    const handle = await fs.open(agent.file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(maxAgentFileBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      cut = bytesRead > maxAgentFileBytes;
      text = buffer.subarray(0, Math.min(bytesRead, maxAgentFileBytes)).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new ThinktankError("AGENT_NOT_FOUND", `the file of agent ${agent.identity} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
  const parsed = parseFrontmatter(text, { lineWise: true });
  const body = parsed.body.trim();
  return cut ? `${body}\n\n[... the agent file is cut at ${maxAgentFileBytes} bytes]` : body;
}
