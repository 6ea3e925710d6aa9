import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Config, ExtensionsStore } from "@thinktank/core";
import { countTokens } from "@thinktank/mcp";
import { AutoMemoryScheduler, memoryDigest, memorySettingsFor, runAutoMemoryPass, type AutoMemoryBatch, type AutoMemoryPassResult, type MemoryStore } from "@thinktank/memory";
import { createChatModel } from "@thinktank/models";
import type { RunExecutor, RunRecord, ThreadService } from "@thinktank/runs";
import type { RunAssistant } from "../assistants/run-assistant.js";
import { buildStateGraph } from "../graph/state-graph.js";
import { memoryTranscriptOf } from "./memory-transcript-of.js";

export interface AgentAutoMemoryOptions {
  readonly config: Config;
  /** extensions_config.json: each owner's switches (users.<id>.memory), read when a pass is due. */
  readonly settings: ExtensionsStore;
  readonly memory: MemoryStore;
  /** Whose a thread is: a pass writes only the memory of the thread's own owner. */
  readonly threads: ThreadService;
  /** The threads' checkpoints (the new messages are read from the thread's state). */
  readonly checkpointer: BaseCheckpointSaver;
  /** The run's assistant, whose `memory: false` keeps its runs out of memory. @default none */
  readonly assistantFor?: (run: RunRecord) => Promise<RunAssistant | undefined>;
  /** The memory model. @default createChatModel(config, config.memory.model) */
  readonly createModel?: (config: Config) => BaseChatModel | Promise<BaseChatModel>;
  readonly logger: { info(object: object, message: string): void; warn(object: object, message: string): void };
  /** Hears each pass that called the model (tests, the log). @default none */
  readonly onPass?: (event: { readonly threadId: string; readonly ownerId: string } & AutoMemoryPassResult) => void;
}

/** Threads whose last read message is remembered at once (a thread past it is read afresh from its last turns). */
const maxMarkers = 10_000;

/**
 * Automatic memory in the agent server (packages/memory, "Automatic memory"): the run executor is
 * wrapped so that a run's end, once the run is over, tells the scheduler; after the thread's quiet
 * period (memory.auto_debounce_ms) a pass reads the messages the thread gained since the last pass
 * and lets the memory model update the owner's memory. Nothing of it is awaited by the run: the
 * executor returns its outcome first, so the run's events, stream and join never wait on memory.
 * A pass does nothing for an owner whose memory or automatic memory is off (checked when it is due,
 * so a switch turned off meanwhile counts), for runs whose config or assistant turned memory off
 * (their messages are skipped for good), and for a run not made by the thread's own owner.
 */
export class AgentAutoMemory {
  readonly scheduler: AutoMemoryScheduler;
  private readonly stateGraph;
  /** The id of the last message each thread's pass read. */
  private readonly markers = new Map<string, string>();
  private model: Promise<BaseChatModel> | undefined;
  /** Run ends being noted (the assistant's setting is read first). */
  private readonly noting = new Set<Promise<void>>();

  constructor(private readonly options: AgentAutoMemoryOptions) {
    this.stateGraph = buildStateGraph(options.checkpointer);
    this.scheduler = new AutoMemoryScheduler({
      debounceMs: options.config.memory.auto_debounce_ms,
      pass: (threadId, batch, signal) => this.pass(threadId, batch, signal),
      onError: (error, threadId) => options.logger.warn({ thread: threadId, error: String(error) }, "automatic memory failed (the next run's end tries again)"),
    });
  }

  /** The executor that reports each run's end here after returning its outcome. */
  wrap(execute: RunExecutor): RunExecutor {
    return async (job, emit) => {
      const outcome = await execute(job, emit);
      if (this.options.config.memory.enabled) {
        const noted = this.runEnded(job.run);
        this.noting.add(noted);
        void noted.finally(() => this.noting.delete(noted));
      }
      return outcome;
    };
  }

  /** Resolves once no run's end is being noted and no pass waits or runs (tests; a graceful stop). */
  async idle(): Promise<void> {
    while (this.noting.size > 0) await Promise.allSettled([...this.noting]);
    await this.scheduler.idle();
  }

  /** Drops waiting passes and stops running ones. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.noting]);
    await this.scheduler.close();
  }

  private async runEnded(run: RunRecord): Promise<void> {
    try {
      const configurable = (run.kwargs.config as { configurable?: { memory?: unknown } } | undefined)?.configurable;
      let memoryOff = configurable?.memory === false || configurable?.memory === "off";
      if (!memoryOff && this.options.assistantFor) memoryOff = (await this.options.assistantFor(run))?.settings.memory === false;
      this.scheduler.runEnded(run.thread_id, { ownerId: run.owner_id, memoryOff });
    } catch (error) {
      this.options.logger.warn({ thread: run.thread_id, error: String(error) }, "automatic memory could not note a run's end");
    }
  }

  private async pass(threadId: string, batch: AutoMemoryBatch, signal: AbortSignal): Promise<void> {
    const { config, settings, memory, threads } = this.options;
    const { ownerId } = batch;
    if (!memorySettingsFor(config, (await settings.read()).document, ownerId).auto) return;
    // Only the thread's own owner: a run an administrator made on someone's thread never writes either memory.
    const thread = await threads.get(threadId, { owner: ownerId, anyById: false, everyone: false }).catch(() => undefined);
    if (!thread || thread.owner_id !== ownerId) return;
    const state = await this.stateGraph.getState({ configurable: { thread_id: threadId } });
    const messages = ((state.values as { messages?: BaseMessage[] } | undefined)?.messages ?? []) as BaseMessage[];
    const fresh = this.freshMessages(threadId, messages, batch.runs);
    if (batch.memoryOff || fresh.length === 0) return;
    const transcript = memoryTranscriptOf(fresh);
    if (!transcript.some((entry) => entry.role === "user")) return;
    const owned = memory.forUser(ownerId);
    const digest = await memoryDigest(owned, { maxTokens: Math.max(config.memory.digest_tokens, 400), countTokens });
    signal.throwIfAborted();
    const result = await runAutoMemoryPass({ model: await this.memoryModel(), memory: owned, transcript, ...(digest ? { digest } : {}), signal });
    this.options.logger.info({ thread: threadId, user: ownerId, steps: result.steps, written: result.written, refused: result.refused.length }, "automatic memory pass");
    this.options.onPass?.({ threadId, ownerId, ...result });
  }

  /**
   * The messages after the last one the previous pass read (all of them are marked read now); for a
   * thread not read before in this process, those of its last `runs` user turns.
   */
  private freshMessages(threadId: string, messages: readonly BaseMessage[], runs: number): BaseMessage[] {
    const marker = this.markers.get(threadId);
    const last = messages.at(-1)?.id;
    this.markers.delete(threadId);
    if (last !== undefined) {
      if (this.markers.size >= maxMarkers) this.markers.delete(this.markers.keys().next().value as string);
      this.markers.set(threadId, last);
    }
    const seen = marker === undefined ? -1 : messages.findIndex((message) => message.id === marker);
    if (seen >= 0) return messages.slice(seen + 1);
    let start = messages.length;
    let turns = 0;
    while (start > 0 && turns < runs) {
      start--;
      if (messages[start]?.getType() === "human") turns++;
    }
    return messages.slice(start);
  }

  private memoryModel(): Promise<BaseChatModel> {
    this.model ??= Promise.resolve(this.options.createModel ? this.options.createModel(this.options.config) : createChatModel(this.options.config, this.options.config.memory.model)).catch((error: unknown) => {
      this.model = undefined;
      throw error;
    });
    return this.model;
  }
}
