import type { RunnableConfig } from "@langchain/core/runnables";
import type { StreamEvent } from "@langchain/core/tracers/log_stream";
import { Command, type StreamMode } from "@langchain/langgraph";
import { isThinktankError, RunWork } from "@thinktank/core";
import type { JsonObject } from "../persistence/agent-records.js";
import { keepBlobRefs } from "../persistence/blob-ref-saver.js";
import { awaitCallbackHandlers } from "./await-callback-handlers.js";
import { nextTurn } from "./fair-turns.js";
import type { RunExecutor, RunJob, RunOutcome } from "./run-executor.js";
import type { RunRequest } from "./run-request.js";
import { RunTally, type TokenCounter } from "./run-tally.js";
import { StreamEventMapper, type ApiStreamMode } from "./stream-event-mapper.js";

/** The options a run's graph is streamed with. */
export interface RunGraphConfig extends RunnableConfig {
  readonly streamMode: StreamMode[];
  /** Subgraphs' chunks too, each as `[namespace, mode, chunk]` (the request's `stream_subgraphs`). */
  readonly subgraphs?: boolean;
  /** "*" or node names (the request's `interrupt_before`), typed by each graph as its own node names. */
  readonly interruptBefore?: never;
  readonly interruptAfter?: never;
  /** When checkpoints are written (the request's `durability`). */
  readonly durability?: "sync" | "async" | "exit";
}

/** What graphRunExecutor needs of a compiled LangGraph graph (over the store's checkpointer). */
export interface StreamableGraph {
  stream(input: never, options: RunGraphConfig): Promise<AsyncIterable<unknown>>;
  streamEvents(input: never, options: RunGraphConfig & { version: "v2" }): AsyncIterable<StreamEvent>;
}

/** The graph one run executes, and what it adds to the run's metadata (e.g. `graph_id`, `model`). */
export interface RunGraph {
  readonly graph: StreamableGraph;
  readonly metadata: JsonObject;
}

export interface GraphRunExecutorOptions {
  /**
   * Builds the run's graph (the app's: its request context, its model). Called inside the run,
   * after the run's first turn: a throw fails the run with the error's code as its `error` event.
   */
  readonly graphFor: (job: RunJob) => Promise<RunGraph>;
  /** Counts the tokens of model calls that report no usage (the run's figures then say `estimated`). @default none: such calls add no tokens */
  readonly countTokens?: TokenCounter;
}

/** Configurable keys a client may not set: they address the checkpointer. */
// keepBlobRefs is for the thread service's reads only: a run reading markers would write them back as text.
const reservedConfigurable = new Set(["thread_id", "checkpoint_ns", "checkpoint_map", keepBlobRefs]);

/**
 * The RunExecutor over a LangGraph graph: streams the graph for the run's input or command and
 * emits the stream modes asked for (stream-event-mapper.ts), then `error` when the run fails.
 */
export function graphRunExecutor(options: GraphRunExecutorOptions): RunExecutor {
  // Before the first run: the stream's `messages` events come from callback handlers (see there).
  awaitCallbackHandlers();
  return (job, emit) => executeGraphRun(job, emit, options.graphFor, new RunTally(options.countTokens));
}

async function executeGraphRun(job: RunJob, emit: (event: string, json: string) => void, graphFor: GraphRunExecutorOptions["graphFor"], tally: RunTally): Promise<RunOutcome> {
  const { run, request, signal } = job;
  const work = new RunWork();
  try {
    // A turn of its own for the run's start (fair-turns.ts); the checkpointer takes one per read and write.
    await nextTurn();
    const { graph, metadata } = await graphFor(job);
    const requested = streamModesOf(request);
    const mapper = new StreamEventMapper(requested);
    const subgraphs = request.stream_subgraphs === true;
    const configurable: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(request.config?.configurable ?? {})) if (!reservedConfigurable.has(key)) configurable[key] = value;
    const checkpointId = request.checkpoint_id ?? request.checkpoint?.checkpoint_id;
    const input = request.command ? new Command({ ...request.command } as ConstructorParameters<typeof Command>[0]) : (request.input ?? null);
    const runConfig: RunGraphConfig = {
      configurable: { ...configurable, ...work.configurable(), thread_id: run.thread_id, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
      recursionLimit: request.config?.recursion_limit ?? 25,
      tags: request.config?.tags,
      metadata: { run_id: run.run_id, thread_id: run.thread_id, assistant_id: run.assistant_id, ...metadata },
      // The run's figures (tokens, tool calls): inherited by nested graphs and sub-agents.
      callbacks: [tally],
      streamMode: mapper.libraryModes(),
      ...(subgraphs ? { subgraphs: true } : {}),
      interruptBefore: request.interrupt_before as never,
      interruptAfter: request.interrupt_after as never,
      // When checkpoints are written (the older checkpoint_during: false is "exit").
      ...(request.durability ? { durability: request.durability } : request.checkpoint_during === false ? { durability: "exit" as const } : {}),
      signal,
    };
    if (mapper.wantsEvents()) {
      // The graph's own stream chunks arrive as its root run's on_chain_stream events: mapped as in
      // graph.stream; every other event is sent as it is.
      let root: string | undefined;
      for await (const event of graph.streamEvents(input as never, { ...runConfig, version: "v2" })) {
        root ??= event.run_id;
        if (event.event === "on_chain_stream" && event.run_id === root) {
          const [namespace, mode, chunk] = chunkParts((event.data as { chunk: unknown[] }).chunk, subgraphs);
          for (const mapped of mapper.map(mode, chunk, namespace)) emit(mapped.event, mapped.json);
        } else {
          const mapped = mapper.event(event);
          emit(mapped.event, mapped.json);
        }
      }
      return { status: "success", figures: tally.figures() };
    }
    const stream = await graph.stream(input as never, runConfig);
    for await (const parts of stream as AsyncIterable<unknown[]>) {
      const [namespace, mode, chunk] = chunkParts(parts, subgraphs);
      for (const event of mapper.map(mode, chunk, namespace)) emit(event.event, event.json);
    }
    return { status: "success", figures: tally.figures() };
  } catch (error) {
    if (signal.aborted) {
      // The graph stops at the abort; a tool's program may still be dying (bash kills its process tree).
      await work.settled();
      return { status: "interrupted", figures: tally.figures() };
    }
    const described = describeError(error);
    emit("error", JSON.stringify(described));
    return { status: "error", error: described, figures: tally.figures() };
  }
}

/** A stream chunk as `[namespace, mode, chunk]`: `[ns, mode, chunk]` with subgraphs, `[mode, chunk]` (the root's) without. */
function chunkParts(parts: readonly unknown[], subgraphs: boolean): [readonly string[], string, unknown] {
  return subgraphs ? [parts[0] as readonly string[], parts[1] as string, parts[2]] : [[], parts[0] as string, parts[1]];
}

function streamModesOf(request: RunRequest): ApiStreamMode[] {
  const modes = request.stream_mode === undefined || request.stream_mode === null ? [] : Array.isArray(request.stream_mode) ? request.stream_mode : [request.stream_mode];
  return modes.length > 0 ? [...modes] : ["values"];
}

/** `{ error, message }`: the ThinktankError code when there is one (e.g. MODEL_NOT_CONFIGURED), else the error's name. */
export function describeError(error: unknown): { error: string; message: string } {
  if (isThinktankError(error)) return { error: error.code, message: error.message };
  if (error instanceof Error) return { error: error.name || "Error", message: error.message };
  return { error: "Error", message: String(error) };
}
