import { Command } from "@langchain/langgraph";
import { isThinktankError, RunWork } from "@thinktank/core";
import { buildLeadAgentGraph } from "../graph/build-lead-agent-graph.js";
import type { RunRecord, RunStatus } from "@thinktank/runs";
import type { AgentStore } from "../persistence/open-agent-store.js";
import type { RequestContext } from "../request/request-context.js";
import { nextTurn } from "@thinktank/runs";
import type { RunEventLog } from "./run-event-log.js";
import type { RunRequest } from "./run-request.js";
import { StreamEventMapper, type ApiStreamMode } from "./stream-event-mapper.js";

export interface RunOutcome {
  readonly status: RunStatus;
  readonly error?: { readonly error: string; readonly message: string };
}

/** Configurable keys a client may not set: they address the checkpointer. */
const reservedConfigurable = new Set(["thread_id", "checkpoint_ns", "checkpoint_map"]);

/**
 * Runs graph lead_agent for one run and writes its events to `log` (after the `metadata` event the
 * run manager wrote): the stream modes asked for, then `error` when the run fails. Never throws: the outcome says how it ended.
 */
export async function executeRun(options: {
  run: RunRecord;
  request: RunRequest;
  store: AgentStore;
  log: RunEventLog;
  signal: AbortSignal;
  prepare: () => Promise<RequestContext>;
}): Promise<RunOutcome> {
  const { run, request, store, log, signal } = options;
  const work = new RunWork();
  try {
    // A turn of its own for the run's start (fair-turns.ts); the checkpointer takes one per read and write.
    await nextTurn();
    const context = await options.prepare();
    const graph = buildLeadAgentGraph(context, store.checkpointer);
    const requested = streamModesOf(request);
    const mapper = new StreamEventMapper(requested);
    const configurable: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(request.config?.configurable ?? {})) if (!reservedConfigurable.has(key)) configurable[key] = value;
    const checkpointId = request.checkpoint_id ?? request.checkpoint?.checkpoint_id;
    const input = request.command ? new Command({ ...request.command } as ConstructorParameters<typeof Command>[0]) : (request.input ?? null);
    const runConfig = {
      configurable: { ...configurable, ...work.configurable(), thread_id: run.thread_id, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
      recursionLimit: request.config?.recursion_limit ?? 25,
      tags: request.config?.tags,
      metadata: { run_id: run.run_id, thread_id: run.thread_id, assistant_id: run.assistant_id, graph_id: "lead_agent", model: context.modelName },
      streamMode: mapper.libraryModes(),
      interruptBefore: request.interrupt_before as never,
      interruptAfter: request.interrupt_after as never,
      signal,
    };
    if (mapper.wantsEvents()) {
      // The graph's own stream chunks arrive as its root run's on_chain_stream events: mapped as in
      // graph.stream; every other event is sent as it is.
      let root: string | undefined;
      for await (const event of graph.streamEvents(input as never, { ...runConfig, version: "v2" })) {
        root ??= event.run_id;
        if (event.event === "on_chain_stream" && event.run_id === root) {
          const [mode, chunk] = (event.data as { chunk: [string, unknown] }).chunk;
          for (const mapped of mapper.map(mode, chunk)) log.push(mapped.event, mapped.json);
        } else {
          const mapped = mapper.event(event);
          log.push(mapped.event, mapped.json);
        }
      }
      return { status: "success" };
    }
    const stream = await graph.stream(input as never, runConfig);
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      for (const event of mapper.map(mode, chunk)) log.push(event.event, event.json);
    }
    return { status: "success" };
  } catch (error) {
    if (signal.aborted) {
      // The graph stops at the abort; a tool's program may still be dying (bash kills its process tree).
      await work.settled();
      return { status: "interrupted" };
    }
    const described = describeError(error);
    log.push("error", JSON.stringify(described));
    return { status: "error", error: described };
  }
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
