import crypto from "node:crypto";
import type { Readable } from "node:stream";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StateSnapshot } from "@langchain/langgraph";
import { ThinktankError } from "@thinktank/core";
import type { JsonObject, ThreadRecord, ThreadSearch } from "../persistence/agent-records.js";
import type { AgentStore } from "../persistence/agent-store.js";
import { keepBlobRefs } from "../persistence/blob-ref-saver.js";
import { isUuid } from "../persistence/is-uuid.js";
import { reaches, type Access } from "../owners/access.js";
import type { ThreadFilter } from "../persistence/metadata-store.js";
import { cancelledToolMessages } from "./cancelled-tool-calls.js";
import { copyThreadCheckpoints, patchCheckpointMetadata } from "./copy-thread-checkpoints.js";
import { checkThreadId } from "./thread-id.js";
import { expandBlobMarkers, threadJsonBody, ThreadJson } from "./thread-json.js";
import { approximateJsonBytes } from "./json-bytes.js";
import { interruptsByTask, toApiThreadState } from "./thread-state.js";
import { asInvalidUpdate, checkCommandUpdate, checkStateInput, checkSupersteps, type SuperstepUpdate } from "./state-input.js";
import { selectFields } from "./select-fields.js";

/** What a thread search's `select` may name. */
const threadFields = ["thread_id", "created_at", "updated_at", "state_updated_at", "metadata", "status", "values", "interrupts", "error"];
/** What a state's or a history page's `select` may name (and `values.<key>`). */
const stateFields = ["values", "next", "tasks", "metadata", "created_at", "checkpoint", "parent_checkpoint", "interrupts"];

/**
 * What ThreadService needs of the served graph: its shape over the store's checkpointer, to read
 * and write state. A compiled LangGraph graph is one; the app builds it with a model that is never called.
 */
export interface ThreadStateGraph {
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  getStateHistory(config: RunnableConfig, options?: { limit?: number; before?: RunnableConfig; filter?: Record<string, unknown> }): AsyncIterableIterator<StateSnapshot>;
  updateState(config: RunnableConfig, values: unknown, asNode?: string): Promise<RunnableConfig>;
  bulkUpdateState(config: RunnableConfig, supersteps: { updates: { values?: unknown; asNode?: string }[] }[]): Promise<RunnableConfig>;
  getGraphAsync(config?: RunnableConfig): Promise<{ toJSON(): unknown }>;
}

export interface ThreadServiceOptions {
  readonly store: AgentStore;
  /** The clock for timestamps. */
  readonly clock: () => Date;
  /** The served graph, over `store.checkpointer`: reading or updating state needs the graph's shape only. */
  readonly stateGraph: ThreadStateGraph;
  /** What every new thread's metadata starts with (the API's graph_id and assistant_id); the caller's metadata goes on top. */
  readonly threadMetadata: JsonObject;
  /**
   * What a thread keeps outside the database (the app passes its files: uploads, outputs, workspace):
   * removed when the thread is deleted (by a route, a prune or a stateless run's end), copied with a copy.
   * @default none
   */
  readonly folders?: ThreadFolderKeeper;
  /** A thread's state (its values as JSON) may not grow past this (agent.threads.max_state_mb): checkRoom. @default 64 MiB */
  readonly maxStateBytes?: number;
  /** One history answer holds states up to this many bytes, and at least one (agent.threads.history_max_mb). @default 16 MiB */
  readonly historyMaxBytes?: number;
  /**
   * More state values written with the answers of a cancelled run's open tool calls (the agent
   * records its cancelled delegations): given those answers and the history they close. @default none
   */
  readonly cancelledValues?: (answers: readonly ToolMessage[], messages: readonly BaseMessage[]) => Record<string, unknown> | undefined;
  /**
   * The keys of the graph's state: a run's input, a command's update or a state update naming
   * another key is refused (INVALID_STATE_INPUT), not ignored. @default any key
   */
  readonly stateKeys?: readonly string[];
}

/** One page of a thread's history: its states, newest first, and the `before` of the next page when there is one. */
export interface HistoryPage {
  readonly states: ThreadJson[];
  readonly next?: string;
}

const mib = 1024 * 1024;

/** The seam for a thread's files on disk: this package never knows what they are. */
export interface ThreadFolderKeeper {
  remove(threadId: string): Promise<void>;
  copy(fromThreadId: string, toThreadId: string): Promise<void>;
}

/**
 * Reads and writes of threads that do not run the model: records, state, history, state updates.
 * Every method a route calls takes the caller's Access: a thread they may not reach is answered
 * THREAD_NOT_FOUND, exactly as a missing one, so ids cannot be probed.
 */
export class ThreadService {
  readonly #store: AgentStore;
  readonly #clock: () => Date;
  readonly #stateGraph: ThreadStateGraph;
  readonly #threadMetadata: JsonObject;
  readonly #folders: ThreadFolderKeeper | undefined;
  readonly #maxStateBytes: number;
  readonly #historyMaxBytes: number;
  readonly #cancelledValues: ThreadServiceOptions["cancelledValues"];
  readonly #stateKeys: readonly string[] | undefined;

  constructor(options: ThreadServiceOptions) {
    this.#stateKeys = options.stateKeys;
    this.#folders = options.folders;
    this.#cancelledValues = options.cancelledValues;
    this.#store = options.store;
    this.#clock = options.clock;
    this.#stateGraph = options.stateGraph;
    this.#threadMetadata = options.threadMetadata;
    this.#maxStateBytes = options.maxStateBytes ?? 64 * mib;
    this.#historyMaxBytes = options.historyMaxBytes ?? 16 * mib;
  }

  /**
   * A response body of thread records or states (ThreadJson: a thread record's `values` and a
   * state's hold blob markers), streamed with the blobs read into it chunk by chunk.
   */
  body(documents: ThreadJson | readonly ThreadJson[]): Readable {
    return threadJsonBody(documents, this.#store.checkpointer.blobs);
  }

  /** A thread record as the API answers it (its values' blobs are read when it is sent: body); `select`: only those fields (a search's). */
  recordJson(thread: ThreadRecord, select?: readonly string[]): ThreadJson {
    return new ThreadJson(selectFields(thread, select, threadFields, "select"), thread.thread_id);
  }

  /** A value read from a thread's record or state with its blob markers replaced by the strings (a run's join result, kept in memory). */
  expand<T>(value: T, threadId: string): Promise<T> {
    return expandBlobMarkers(value, threadId, this.#store.checkpointer.blobs);
  }

  /**
   * Refuses (THREAD_STATE_TOO_LARGE) what would take the thread's state past maxStateBytes: its
   * values now (its record, undefined for a thread about to be made; blob sizes from their
   * markers: nothing is read) plus `added` (a run's input and command update, a state update) as JSON.
   */
  checkRoom(thread: ThreadRecord | undefined, added: unknown): void {
    const current = thread?.values ? new ThreadJson(thread.values, thread.thread_id).bytes : 0;
    const adding = approximateJsonBytes(added);
    if (current + adding <= this.#maxStateBytes) return;
    const mb = (bytes: number) => `${(bytes / mib).toFixed(1)} MB`;
    const limit = `the limit of ${mb(this.#maxStateBytes)} a thread's state may hold (agent.threads.max_state_mb)`;
    const what = thread ? `thread ${thread.thread_id} holds ${mb(current)}; adding ${mb(adding)} would take it past ${limit}: start a new thread` : `this input of ${mb(adding)} is past ${limit}`;
    throw new ThinktankError("THREAD_STATE_TOO_LARGE", what);
  }

  /**
   * Refuses (422 INVALID_STATE_INPUT, `details.field`) what the graph's state cannot take: a run's
   * `input` or `command.update` (field names them), before anything is recorded (state-input.ts).
   */
  checkInput(request: { input?: unknown; command?: { update?: unknown } | null }): void {
    checkStateInput(request.input, "input", this.#stateKeys);
    if (request.command) checkCommandUpdate(request.command.update, "command.update", this.#stateKeys);
  }

  /** The graph's nodes and edges for GET /assistants/:id/graph. */
  async drawableGraph(): Promise<unknown> {
    return (await this.#stateGraph.getGraphAsync()).toJSON();
  }

  /**
   * A new thread owned by `access.owner`. An id that is taken answers CONFLICT, also when another
   * owner holds it (`do_nothing` returns only a thread the caller reaches): thread ids are one
   * space for everyone, so clients that want theirs private use the server's UUIDs.
   */
  async create(options: { threadId?: string; metadata?: JsonObject; ifExists?: "raise" | "do_nothing" }, access: Access): Promise<ThreadRecord> {
    const threadId = options.threadId === undefined ? crypto.randomUUID() : checkThreadId(options.threadId);
    const existing = await this.#store.metadata.getThread(threadId);
    if (existing) {
      if (options.ifExists === "do_nothing" && reaches(access, existing.owner_id)) return existing;
      throw new ThinktankError("CONFLICT", `thread ${threadId} already exists`);
    }
    const now = this.#clock().toISOString();
    const thread: ThreadRecord = {
      thread_id: threadId,
      created_at: now,
      updated_at: now,
      state_updated_at: now,
      metadata: { ...this.#threadMetadata, ...withoutUndefined(options.metadata ?? {}) },
      status: "idle",
      values: null,
      interrupts: {},
      error: null,
      owner_id: access.owner,
    };
    await this.#store.metadata.createThread(thread);
    return thread;
  }

  /**
   * Every route that addresses a thread reads it through here (or RunManager), so the id rule
   * applies before the store is asked, and another owner's thread is missing to the caller.
   */
  async get(threadId: string, access: Access): Promise<ThreadRecord> {
    const thread = await this.#store.metadata.getThread(checkThreadId(threadId));
    if (!thread || !reaches(access, thread.owner_id)) throw new ThinktankError("THREAD_NOT_FOUND", `no thread ${threadId}`);
    return thread;
  }

  async patchMetadata(threadId: string, metadata: JsonObject, access: Access): Promise<ThreadRecord> {
    const thread = await this.get(threadId, access);
    const updated = await this.#store.metadata.updateThread(threadId, { metadata: { ...thread.metadata, ...metadata } }, this.#clock().toISOString());
    if (!updated) throw new ThinktankError("THREAD_NOT_FOUND", `no thread ${threadId}`);
    return updated;
  }

  /**
   * POST /threads/:id/copy: a new thread (new UUID) with the source's metadata (plus `thread_id`:
   * the copy's id) and every checkpoint with its pending writes, so state, history
   * and a pending interrupt carry over; status and values follow from the copied state, and the
   * thread's folders (`options.folders`: workspace, uploads, outputs) are copied. Runs are not
   * copied. The copy is the caller's.
   */
  async copy(threadId: string, access: Access): Promise<ThreadRecord> {
    const source = await this.get(threadId, access);
    const copyId = crypto.randomUUID();
    try {
      await copyThreadCheckpoints(this.#store.checkpointer, source.thread_id, copyId);
      await this.#folders?.copy(source.thread_id, copyId);
      const now = this.#clock().toISOString();
      // As LangGraph's own server does, the copy's metadata names the copy.
      const metadata = { ...source.metadata, thread_id: copyId };
      await this.#store.metadata.createThread({ ...source, thread_id: copyId, created_at: now, updated_at: now, state_updated_at: now, metadata, status: "idle", error: null, owner_id: access.owner });
    } catch (error) {
      // Leave nothing half-copied behind: checkpoints without a record would never be listed or deleted.
      await this.#store.checkpointer.deleteThread(copyId).catch(() => undefined);
      await this.#folders?.remove(copyId).catch(() => undefined);
      throw error;
    }
    return (await this.refresh(copyId)) ?? this.get(copyId, access);
  }

  /** Removes the record, its runs, its checkpoints and its folders (`options.folders`). The caller cancels running runs first. */
  async delete(threadId: string, access: Access): Promise<void> {
    await this.get(threadId, access);
    await this.#store.checkpointer.deleteThread(threadId);
    await this.#store.metadata.deleteThread(threadId);
    await this.#folders?.remove(threadId);
  }

  /** The caller's threads; everyone's for `everyone` access (an administrator asking for all). */
  search(search: ThreadSearch, access: Access): Promise<ThreadRecord[]> {
    return this.#store.metadata.searchThreads(access.everyone ? search : { ...search, owner: access.owner });
  }

  count(search: ThreadFilter, access: Access): Promise<number> {
    return this.#store.metadata.countThreads(access.everyone ? search : { ...search, owner: access.owner });
  }

  /** A state (ThreadState) as the API answers it, read with its blob markers: send it with `body`. `select`: only those fields, or `values.<key>`. */
  async state(threadId: string, checkpoint: { checkpoint_id?: string; checkpoint_ns?: string } | undefined, access: Access, select?: readonly string[]): Promise<ThreadJson> {
    await this.get(threadId, access);
    checkCheckpointId(threadId, checkpoint?.checkpoint_id);
    const snapshot = await this.#stateGraph.getState({ configurable: { thread_id: threadId, ...checkpoint, [keepBlobRefs]: true } });
    if (checkpoint?.checkpoint_id && snapshot.config?.configurable?.checkpoint_id !== checkpoint.checkpoint_id) {
      throw new ThinktankError("NOT_FOUND", `thread ${threadId} has no checkpoint ${checkpoint.checkpoint_id}`);
    }
    return new ThreadJson(selectFields(toApiThreadState(snapshot), select, stateFields, "select", true), threadId);
  }

  /**
   * A page of history, newest first: at most `limit` states, and no more than historyMaxBytes of
   * them (at least one, however large). Checkpoints are read a few at a time with their blob
   * markers, and reading stops when the page is full, so a page costs what it holds, not what the
   * thread holds. `next` is the `before` of the following page, when there are more states.
   */
  async history(threadId: string, options: { limit: number; before?: string; metadata?: JsonObject; checkpoint?: JsonObject; select?: readonly string[] }, access: Access): Promise<HistoryPage> {
    await this.get(threadId, access);
    checkCheckpointId(threadId, options.before);
    checkCheckpointId(threadId, options.checkpoint?.checkpoint_id);
    const states: ThreadJson[] = [];
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...options.checkpoint, [keepBlobRefs]: true } };
    const before = options.before ? { configurable: { thread_id: threadId, checkpoint_id: options.before } } : undefined;
    let bytes = 0;
    let more = false;
    let lastCheckpoint: string | undefined;
    // One more than asked for: whether it exists says whether there is a next page.
    for await (const snapshot of this.#stateGraph.getStateHistory(config, { limit: options.limit + 1, before, filter: options.metadata })) {
      const full = toApiThreadState(snapshot);
      const state = new ThreadJson(selectFields(full, options.select, stateFields, "select", true), threadId);
      if (states.length >= options.limit || (states.length > 0 && bytes + state.bytes > this.#historyMaxBytes)) {
        more = true;
        break;
      }
      states.push(state);
      bytes += state.bytes;
      lastCheckpoint = full.checkpoint?.checkpoint_id ?? undefined;
    }
    return { states, ...(more && lastCheckpoint ? { next: lastCheckpoint } : {}) };
  }

  /** Writes values as if node `asNode` had returned them; returns the new checkpoint. */
  async updateState(threadId: string, values: unknown, options: { asNode?: string; checkpointId?: string }, access: Access): Promise<{ checkpoint: unknown }> {
    const thread = await this.get(threadId, access);
    if (thread.status === "busy") throw new ThinktankError("THREAD_BUSY", `thread ${threadId} is running; update its state when the run ends`);
    checkCheckpointId(threadId, options.checkpointId);
    checkStateInput(values, "values", this.#stateKeys);
    const config = { configurable: { thread_id: threadId, ...(options.checkpointId ? { checkpoint_id: options.checkpointId } : {}) } };
    this.checkRoom(thread, values);
    const next = await this.#stateGraph.updateState(config, values, options.asNode).catch((error: unknown) => {
      throw asInvalidUpdate(error, "this state update", (message) => (/node|asNode/i.test(message) ? "as_node" : "values"));
    });
    await this.refresh(threadId);
    return { checkpoint: next.configurable ?? null };
  }

  /**
   * A new thread's first states (POST /threads `supersteps`): each superstep's updates applied as
   * if their nodes had returned them, one checkpoint per superstep, each update's values checked
   * first (INVALID_STATE_INPUT, `supersteps[i].updates[j].values`). LangGraph refusing one (an
   * unknown as_node) is INVALID_STATE_INPUT too. The thread record follows the last state.
   */
  async applySupersteps(threadId: string, supersteps: readonly { updates: readonly SuperstepUpdate[] }[]): Promise<ThreadRecord | undefined> {
    const steps = checkSupersteps(supersteps, this.#stateKeys);
    await this.#stateGraph.bulkUpdateState({ configurable: { thread_id: threadId } }, steps).catch((error: unknown) => {
      throw asInvalidUpdate(error, "these supersteps", () => "supersteps");
    });
    return this.refresh(threadId);
  }

  /**
   * PATCH /threads/:id/state: merges `metadata` into the metadata of the thread's latest checkpoint
   * (the state's `metadata`), in place: no new checkpoint, the values untouched. NOT_FOUND when the
   * thread has no state yet; THREAD_BUSY while a run writes it.
   */
  async patchStateMetadata(threadId: string, metadata: JsonObject, access: Access): Promise<void> {
    const thread = await this.get(threadId, access);
    if (thread.status === "busy") throw new ThinktankError("THREAD_BUSY", `thread ${threadId} is running; patch its state when the run ends`);
    await patchCheckpointMetadata(this.#store.checkpointer, threadId, metadata);
  }

  /**
   * After a cancelled run: answers each tool call the run left open with an error ToolMessage
   * ("cancelled: ..."), as a checkpoint update from the tools node, then ends the graph there, so the
   * thread's state shows no pending step and the next run builds on a closed history. A thread
   * waiting at an interrupt is left alone (its open call is answered by the resume). Returns how many calls it closed.
   */
  async closeCancelledToolCalls(threadId: string): Promise<number> {
    const config = { configurable: { thread_id: threadId } };
    // Only the tool calls' ids are needed: large strings stay in their blobs.
    const snapshot = await this.#stateGraph.getState({ configurable: { ...config.configurable, [keepBlobRefs]: true } });
    if (Object.keys(interruptsByTask(snapshot)).length > 0) return 0;
    const history = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
    const messages = cancelledToolMessages(history);
    if (messages.length === 0) return 0;
    const values = { ...this.#cancelledValues?.(messages, history), messages };
    await this.#stateGraph.bulkUpdateState(config, [{ updates: [{ values, asNode: "tools" }] }, { updates: [{ values: null, asNode: "__end__" }] }]);
    return messages.length;
  }

  /**
   * Copies the latest state into the thread record (values, interrupts, status). The values keep
   * their blob markers, so a run's end writes a list of markers, not the thread again; whatever
   * answers them reads the blobs (body, expand).
   */
  async refresh(threadId: string, extra: { status?: ThreadRecord["status"]; error?: ThreadRecord["error"] } = {}): Promise<ThreadRecord | undefined> {
    const snapshot = await this.#stateGraph.getState({ configurable: { thread_id: threadId, [keepBlobRefs]: true } });
    const interrupts = interruptsByTask(snapshot);
    const status = extra.status ?? (Object.keys(interrupts).length > 0 ? "interrupted" : "idle");
    const now = this.#clock().toISOString();
    return this.#store.metadata.updateThread(
      threadId,
      { values: toApiThreadState(snapshot).values, interrupts, status, error: extra.error ?? null, state_updated_at: now },
      now,
    );
  }
}

/** Checkpoint ids are UUIDs: any other value names no checkpoint and is not looked up. */
function checkCheckpointId(threadId: string, checkpointId: unknown): void {
  if (checkpointId !== undefined && checkpointId !== null && checkpointId !== "" && !isUuid(checkpointId)) {
    throw new ThinktankError("NOT_FOUND", `thread ${threadId} has no checkpoint ${JSON.stringify(checkpointId)}`);
  }
}

function withoutUndefined(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
