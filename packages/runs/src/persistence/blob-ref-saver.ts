import type { RunnableConfig } from "@langchain/core/runnables";
import { BaseCheckpointSaver, type ChannelVersions, type Checkpoint, type CheckpointListOptions, type CheckpointMetadata, type CheckpointTuple, type PendingWrite } from "@langchain/langgraph-checkpoint";
import { nextTurn } from "../runs/fair-turns.js";
import { defaultBlobThreshold, encodeBlob, markerOf, needsBlob, refOf } from "./blob-refs.js";
import type { SqlBlobStore } from "./sql-blob-store.js";

/**
 * A `configurable` key: reads through a config with it set to true answer the stored markers
 * instead of the strings (thread-service.ts reads state and history that way and streams the blobs
 * into the response, thread-json.ts). Nothing may be written back from such a read.
 */
export const keepBlobRefs = "thinktank_keep_blob_refs";

/** Checkpoints read per query when `list` is asked for many: a reader that stops early reads no more. */
const listPage = 8;

export interface BlobRefSaverOptions {
  /** Strings at least this long (UTF-16 code units) are kept as blobs. @default 16384 */
  readonly threshold?: number;
}

/** What a message (or a plain object) was last stored or read with in a thread: its large strings' markers. */
interface KnownStrings {
  readonly threadId: string;
  readonly markers: Map<string, string>;
}

type Serializable = { lc_kwargs: object; toJSON(): { type?: string; kwargs?: unknown } };

/**
 * The checkpointer (SQLite or Postgres) with every large string of a checkpoint's channel values and
 * pending writes (message contents, text parts, tool arguments and results, a run's input) stored
 * once per thread in the blob table and a short marker (blob-refs.ts) in its place. A thread's
 * checkpoints each list its whole message history, so without this every turn stored every
 * message again; with it a turn stores what is new plus a list of markers.
 *
 * Reads put the strings back (`getTuple`, `list`), unless asked not to (`keepBlobRefs`). A message
 * read or stored once is known by identity with its markers, so a run writing the same messages
 * at every step hashes and stores only new strings. `list` reads a few checkpoints per query.
 */
export class BlobRefSaver extends BaseCheckpointSaver {
  /** The saver the checkpoints (with markers) are written to. */
  readonly inner: BaseCheckpointSaver;
  readonly blobs: SqlBlobStore;
  readonly #threshold: number;
  readonly #known = new WeakMap<object, KnownStrings>();

  constructor(inner: BaseCheckpointSaver, blobs: SqlBlobStore, options: BlobRefSaverOptions = {}) {
    super(inner.serde);
    this.inner = inner;
    this.blobs = blobs;
    this.#threshold = options.threshold ?? defaultBlobThreshold;
  }

  override getNextVersion(current: number | undefined): number {
    return this.inner.getNextVersion(current);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const tuple = await this.inner.getTuple(config);
    if (tuple && !config.configurable?.[keepBlobRefs]) await this.#restore(tuple);
    return tuple;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const keep = Boolean(config.configurable?.[keepBlobRefs]);
    const paged = config.configurable?.thread_id !== undefined && config.configurable?.checkpoint_ns !== undefined;
    let remaining = options.limit ?? Infinity;
    let before = options.before;
    while (remaining > 0) {
      const limit = paged ? Math.min(remaining, listPage) : options.limit;
      let read = 0;
      for await (const tuple of this.inner.list(config, { ...options, limit, before })) {
        read += 1;
        remaining -= 1;
        before = { configurable: { checkpoint_id: tuple.config.configurable?.checkpoint_id } };
        if (!keep) await this.#restore(tuple);
        yield tuple;
        // SQLite's saver reads synchronously and its generator never waits on I/O: a reader of many checkpoints takes turns.
        await nextTurn();
      }
      if (!paged || read < (limit ?? Infinity)) return;
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = String(config.configurable?.thread_id ?? "");
    const channelValues = (await this.#externalize(checkpoint.channel_values, threadId, undefined, new Map())) as Checkpoint["channel_values"];
    return this.inner.put(config, { ...checkpoint, channel_values: channelValues }, metadata, newVersions);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = String(config.configurable?.thread_id ?? "");
    const written = new Map<string, string>();
    const stored: PendingWrite[] = [];
    for (const [channel, value] of writes) stored.push([channel, await this.#externalize(value, threadId, undefined, written)]);
    return this.inner.putWrites(config, stored, taskId, taskPath);
  }

  /** The checkpoints and writes (inner saver), then the blobs. */
  async deleteThread(threadId: string): Promise<void> {
    await this.inner.deleteThread(threadId);
    await this.blobs.deleteThread(threadId);
  }

  /**
   * `value` with each large string replaced by its marker (the blob stored first), copied where it
   * changes and never modified. A message is stored as its serialized form (`toJSON`, what the
   * serializer writes of it), with its strings replaced. Its strings are known by the message they
   * are in (`message`), other strings by the object or array holding them (`container`).
   */
  async #externalize(value: unknown, threadId: string, message: object | undefined, written: Map<string, string>, container?: object): Promise<unknown> {
    if (typeof value === "string") return needsBlob(value, this.#threshold) ? this.#markerFor(value, threadId, message ?? container, written) : value;
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const next = await this.#externalize(value[index], threadId, message, written, value);
        if (next !== value[index]) (copy ??= [...value])[index] = next;
      }
      return copy ?? value;
    }
    if (isSerializable(value)) {
      const serialized = value.toJSON();
      if (serialized.type !== "constructor" || serialized.kwargs === undefined) return value;
      const kwargs = await this.#externalize(serialized.kwargs, threadId, message ?? value, written);
      return kwargs === serialized.kwargs ? value : { ...serialized, kwargs };
    }
    if (!isPlainObject(value)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const [key, field] of Object.entries(value)) {
      const next = await this.#externalize(field, threadId, message, written, value);
      if (next !== field) (copy ??= { ...value })[key] = next;
    }
    return copy ?? value;
  }

  async #markerFor(value: string, threadId: string, owner: object | undefined, written: Map<string, string>): Promise<string> {
    const known = owner ? this.#known.get(owner) : undefined;
    const marker = (known?.threadId === threadId ? known.markers.get(value) : undefined) ?? written.get(value) ?? (await this.#store(value, threadId));
    written.set(value, marker);
    if (owner) this.#remember(owner, threadId, value, marker);
    return marker;
  }

  async #store(value: string, threadId: string): Promise<string> {
    const { ref, chunks } = encodeBlob(value);
    await this.blobs.write(threadId, ref, chunks);
    return markerOf(ref);
  }

  #remember(owner: object, threadId: string, value: string, marker: string): void {
    let known = this.#known.get(owner);
    if (!known || known.threadId !== threadId) this.#known.set(owner, (known = { threadId, markers: new Map() }));
    known.markers.set(value, marker);
  }

  /** Puts the strings back into a tuple read from the inner saver, in place (its objects are fresh); a missing blob leaves its marker. */
  async #restore(tuple: CheckpointTuple): Promise<void> {
    const threadId = String(tuple.config.configurable?.thread_id ?? "");
    const slots: { target: Record<string | number, unknown>; key: string | number; marker: string; owner: object }[] = [];
    const seen = new WeakSet<object>();
    const collect = (target: Record<string | number, unknown>, owner: object | undefined): void => {
      if (seen.has(target)) return;
      seen.add(target);
      const inner = owner ?? (isSerializable(target) ? target : undefined);
      for (const key of Object.keys(target)) {
        const field = target[key];
        if (typeof field === "string") {
          if (field.startsWith("thinktank-blob:") && refOf(field)) slots.push({ target, key, marker: field, owner: inner ?? target });
        } else if (field !== null && typeof field === "object" && (Array.isArray(field) || isPlainObject(field) || isSerializable(field))) {
          collect(field as Record<string, unknown>, inner);
        }
      }
    };
    collect(tuple.checkpoint.channel_values as Record<string, unknown>, undefined);
    for (const write of tuple.pendingWrites ?? []) collect(write as unknown as Record<number, unknown>, undefined);
    const strings = new Map<string, string | undefined>();
    for (const slot of slots) {
      if (!strings.has(slot.marker)) strings.set(slot.marker, await this.blobs.read(threadId, (refOf(slot.marker) as { sha256: string }).sha256));
      const value = strings.get(slot.marker);
      if (value === undefined) continue;
      slot.target[slot.key] = value;
      this.#remember(slot.owner, threadId, value, slot.marker);
    }
  }
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function isSerializable(value: object): value is Serializable {
  return "lc_kwargs" in value && typeof (value as { toJSON?: unknown }).toJSON === "function" && typeof (value as { lc_kwargs: unknown }).lc_kwargs === "object";
}
