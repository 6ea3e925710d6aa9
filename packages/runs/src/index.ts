// Public API of @thinktank/runs: every export is listed here by name (README.md says what each is for).
export { openSqliteStore, openPostgresStore } from "./persistence/agent-store.js";
export type { AgentStore } from "./persistence/agent-store.js";
export type { MetadataStore, ThreadFilter } from "./persistence/metadata-store.js";
export { containsAll } from "./persistence/metadata-store.js";
export type { ItemStore, StoredItem } from "./persistence/item-store.js";
export type {
  JsonObject,
  MultitaskStrategy,
  RunPatch,
  RunRecord,
  RunStatus,
  ThreadPatch,
  ThreadRecord,
  ThreadSearch,
  ThreadStatus,
} from "./persistence/agent-records.js";
export { isUuid } from "./persistence/is-uuid.js";
export { nextTurn } from "./runs/fair-turns.js";
export { ThreadService } from "./threads/thread-service.js";
export type { ThreadServiceOptions, ThreadStateGraph } from "./threads/thread-service.js";
export type { ApiThreadState, ApiCheckpoint } from "./threads/thread-state.js";
export { checkThreadId } from "./threads/thread-id.js";
export { toJsonText, toPlainJson } from "./to-plain-json.js";
export { StoreService } from "./store/store-service.js";
export type { ApiStoreItem, StoreSearch, NamespaceListing } from "./store/store-service.js";
