/**
 * What automatic memory is shown of a thread's new messages, each with where it came from. The
 * agent maps its messages to these (apps/agent, auto-memory wiring); this package never reads a
 * LangChain message's private keys.
 */
export interface MemoryTranscriptEntry {
  /**
   * `user`: what the person typed (a slash command as typed, not its expansion);
   * `assistant`: the agent's own answers;
   * `tool`: a tool's result; `file`: text that came from a file, a skill, a command expansion or a
   * hook rather than from the person. Only `user` text may become a plain memory; `tool` and `file`
   * text only as a quoted fact naming its source (ProvenanceGuard).
   */
  readonly role: "user" | "assistant" | "tool" | "file";
  /** Who produced it, as the memory model must cite it: a tool's name (`read_file`), `slash command /deploy`, ... */
  readonly source: string;
  readonly text: string;
}

/** Whether an entry's text came from somewhere other than the person or the agent. */
export function isForeign(entry: MemoryTranscriptEntry): boolean {
  return entry.role === "tool" || entry.role === "file";
}
