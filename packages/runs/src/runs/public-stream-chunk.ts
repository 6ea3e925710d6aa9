import { keepBlobRefs } from "../persistence/blob-ref-saver.js";

/** The fields of a run's config a stream event may show (LangGraph's config as the Platform API shows it). */
const publicConfigFields = new Set(["configurable", "metadata", "tags", "recursion_limit", "run_name", "run_id"]);

/**
 * A stream chunk as a client may see it: the configs, metadata and configurables LangGraph puts in
 * `checkpoints`, `debug`, `tasks`, `messages` and `events` chunks keep only public entries. Private
 * ones are dropped: keys starting with `__` (this server's `__thinktank_*` run tracker, LangGraph's
 * `__pregel_*` internals a subgraph's config inherits), `callbacks`, `signal`, the blob-marker read
 * flag, and in a configurable any value that is not plain JSON (a class instance: a callback manager,
 * a checkpointer), which no client sent. The state's values are not walked: they are the client's to see.
 */
export function publicStreamChunk(mode: string, chunk: unknown): unknown {
  if (!isRecord(chunk)) {
    // messages: [message chunk, metadata].
    if (mode === "messages" && Array.isArray(chunk) && chunk.length === 2) return [chunk[0], publicEntries(chunk[1], false)];
    return chunk;
  }
  if (mode === "checkpoints") return publicCheckpoint(chunk);
  if (mode === "debug") {
    const payload = chunk.payload;
    if (!isRecord(payload)) return chunk;
    return { ...chunk, payload: chunk.type === "checkpoint" ? publicCheckpoint(payload) : withPublic(payload, "metadata") };
  }
  if (mode === "tasks") return withPublic(chunk, "metadata");
  return chunk;
}

/** One streamEvents (v2) event as the `events` mode sends it: its metadata public, the same for the nested runs' events. */
export function publicStreamEvent(event: unknown): unknown {
  return isRecord(event) ? withPublic(event, "metadata") : event;
}

/** A checkpoint chunk: its config and its parent's (both spellings) without private entries. */
function publicCheckpoint(chunk: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...chunk };
  for (const key of ["config", "parentConfig", "parent_config"]) if (key in result) result[key] = publicConfig(result[key]);
  return withPublic(result, "metadata");
}

function publicConfig(config: unknown): unknown {
  if (!isRecord(config)) return config;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (!publicConfigFields.has(key)) continue;
    result[key] = key === "configurable" ? publicEntries(value, true) : key === "metadata" ? publicEntries(value, false) : value;
  }
  return result;
}

function withPublic(record: Record<string, unknown>, key: string): Record<string, unknown> {
  return key in record ? { ...record, [key]: publicEntries(record[key], false) } : record;
}

/** Without private keys; `plainOnly` (a configurable, which holds only what a client sent and what the server adds): without values that are not plain JSON either. */
function publicEntries(value: unknown, plainOnly: boolean): unknown {
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key, entry]) => !isPrivateKey(key) && (!plainOnly || isPlainJson(entry, 0))));
}

function isPrivateKey(key: string): boolean {
  return key.startsWith("__") || key === keepBlobRefs || key === "callbacks" || key === "signal";
}

/** Strings, numbers, booleans, null, and arrays and plain objects of them (what a client can send). */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return true;
  if (typeof value !== "object" || depth > 32) return false;
  if (Array.isArray(value)) return value.every((each) => isPlainJson(each, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.values(value).every((each) => isPlainJson(each, depth + 1));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
