import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { memoryCommandJsonSchema, memoryToolDescription, parseMemoryCommand, runMemoryCommand, type MemoryCommand } from "../memory-commands.js";
import type { UserMemory } from "../user-memory.js";
import { autoMemoryRequest, autoMemorySystemPrompt, shownEntries } from "./auto-memory-prompt.js";
import type { MemoryTranscriptEntry } from "./memory-transcript.js";
import { ProvenanceGuard } from "./provenance-guard.js";

export interface AutoMemoryPassOptions {
  /** The memory model (config memory.model, else the runs' model); its tools are bound here. */
  readonly model: BaseChatModel;
  /** The run owner's memory: the only one the pass reads or writes. */
  readonly memory: UserMemory;
  /** The thread's new messages, each with where it came from. */
  readonly transcript: readonly MemoryTranscriptEntry[];
  /** The owner's current `<memory>` digest (memoryDigest), so the model sees what is known. @default an empty memory */
  readonly digest?: string;
  /** Model calls at most (each may make several tool calls). @default 6 */
  readonly maxSteps?: number;
  /** Stops the pass (the server is closing). */
  readonly signal?: AbortSignal;
}

/** What a pass did, for the log and tests. */
export interface AutoMemoryPassResult {
  /** Model calls made. */
  readonly steps: number;
  /** Commands that changed memory, as `command path`. */
  readonly written: readonly string[];
  /** Commands refused (by the guard, or not allowed here), with why. */
  readonly refused: readonly string[];
}

/** What the memory model may do: read and add, never delete or rename (the user's decisions). */
const allowedCommands = new Set<MemoryCommand["command"]>(["view", "create", "str_replace", "insert"]);

/**
 * One automatic memory pass over a thread's new messages: the memory model (with the memory tool's
 * commands) sees the owner's digest and the transcript and may update the owner's memory. Every
 * write first meets ProvenanceGuard: text copied from tools or files must be a quoted fact with
 * its source and never an instruction, or the call is answered with the refusal (the model may
 * correct it or leave it). Runs in the background after the run ended; never throws for what the
 * model does (a bad call is answered as the tool would).
 */
export async function runAutoMemoryPass(options: AutoMemoryPassOptions): Promise<AutoMemoryPassResult> {
  // LangChain loads with the first pass, not with every process that imports this package (the gateway, `thinktank memory`).
  const [{ HumanMessage, SystemMessage, ToolMessage }, { tool }] = await Promise.all([import("@langchain/core/messages"), import("@langchain/core/tools")]);
  const { memory, transcript, signal } = options;
  // The guard indexes what the model is shown (it can copy nothing else): bounded work, a few ms.
  const guard = new ProvenanceGuard(shownEntries(transcript).shown);
  const definition = tool(async () => "", { name: "memory", description: memoryToolDescription, schema: memoryCommandJsonSchema as unknown as Record<string, unknown> });
  const model = options.model.bindTools ? options.model.bindTools([definition]) : options.model;
  const messages: BaseMessage[] = [new SystemMessage(autoMemorySystemPrompt), new HumanMessage(autoMemoryRequest(transcript, options.digest))];
  const written: string[] = [];
  const refused: string[] = [];
  const maxSteps = options.maxSteps ?? 6;
  let steps = 0;
  while (steps < maxSteps) {
    signal?.throwIfAborted();
    const answer = (await model.invoke(messages, signal ? { signal } : {})) as AIMessage;
    steps++;
    messages.push(answer);
    const calls = answer.tool_calls ?? [];
    if (calls.length === 0) break;
    for (const call of calls) {
      const reply = await answerCall(call.name, call.args, { memory, guard, written, refused });
      messages.push(new ToolMessage({ content: reply, tool_call_id: call.id ?? "", name: call.name }));
    }
  }
  return { steps, written, refused };
}

async function answerCall(name: string, args: unknown, state: { memory: UserMemory; guard: ProvenanceGuard; written: string[]; refused: string[] }): Promise<string> {
  if (name !== "memory") return `Error: there is no tool ${name}; use memory`;
  let command: MemoryCommand;
  try {
    command = parseMemoryCommand(args);
  } catch (error) {
    return `Error: ${(error as Error).message}`;
  }
  const label = `${command.command} ${"path" in command ? command.path : command.old_path}`;
  if (!allowedCommands.has(command.command)) {
    state.refused.push(`${label}: not allowed`);
    return `refused: automatic memory may view, create, str_replace and insert; ${command.command} is left to the user.`;
  }
  const verdict = state.guard.check(addedText(command));
  if (!verdict.ok) {
    state.refused.push(`${label}: ${verdict.reason}`);
    return verdict.reason;
  }
  const result = await runMemoryCommand(state.memory, command);
  if (result.ok && command.command !== "view") state.written.push(label);
  return result.text;
}

/** What a command would add to memory (a path included, since the digest lists names). */
function addedText(command: MemoryCommand): string {
  switch (command.command) {
    case "create":
      return `${command.path.replace(/[/_-]+/g, " ")}\n${command.file_text}`;
    case "str_replace":
      return command.new_str;
    case "insert":
      return command.insert_text;
    default:
      return "";
  }
}
