// Public API of @thinktank/runs: every export is listed here by name (README.md says what each is for).
export { openSqliteStore, openPostgresStore } from "./persistence/agent-store.js";
export type { AgentStore } from "./persistence/agent-store.js";
export type { MetadataStore, ThreadFilter } from "./persistence/metadata-store.js";
export { containsAll } from "./persistence/metadata-store.js";
export type { ItemStore, StoredItem } from "./persistence/item-store.js";
export type {
  JsonObject,
  MultitaskStrategy,
  RecentRun,
  RunPatch,
  RunRecord,
  RunStatus,
  ThreadPatch,
  ThreadRecord,
  ThreadSearch,
  ThreadStatus,
} from "./persistence/agent-records.js";
export { RunManager } from "./runs/run-manager.js";
export type { RunManagerOptions } from "./runs/run-manager.js";
export type { RunLog } from "./runs/run-worker.js";
export type { RunExecutor, RunJob, RunOutcome } from "./runs/run-executor.js";
export type { RunFigures, RunSummary } from "./runs/run-figures.js";
export type { TokenCounter } from "./runs/run-tally.js";
export { graphRunExecutor } from "./runs/graph-run-executor.js";
export type { GraphRunExecutorOptions, RunGraph, RunGraphConfig, StreamableGraph } from "./runs/graph-run-executor.js";
export { InMemoryRunQueue, admitUnder } from "./runs/run-queue.js";
export type { RunQueue, Admission, Admitted, RunTicket, RunTurn, RunQueueHandlers, SharedRunQueueOptions } from "./runs/run-queue.js";
export { LocalRunQueue } from "./runs/local-run-queue.js";
export { KeptRunEvents } from "./runs/kept-run-events.js";
export type { KeptRunEventsOptions } from "./runs/kept-run-events.js";
export type { RunEventStore, RunEvents, RunEvent, KeptRun } from "./runs/run-event-store.js";
export { openPostgresRunEvents, openRedisRunEvents } from "./runs/events/shared-run-events.js";
export type { SharedRunEventsOptions } from "./runs/events/shared-run-events.js";
export type { ReplicatedRunEvents } from "./runs/events/replicated-run-events.js";
export { runRequestSchema } from "./runs/run-request.js";
export type { RunRequest } from "./runs/run-request.js";
export { ThreadService } from "./threads/thread-service.js";
export { withUnansweredToolCallsClosed } from "./threads/cancelled-tool-calls.js";
export { ThreadJson } from "./threads/thread-json.js";
export type { HistoryPage } from "./threads/thread-service.js";
export { BlobRefSaver, keepBlobRefs } from "./persistence/blob-ref-saver.js";
export type { BlobRefSaverOptions } from "./persistence/blob-ref-saver.js";
export { SqlBlobStore } from "./persistence/sql-blob-store.js";
export type { ThreadFolderKeeper, ThreadServiceOptions, ThreadStateGraph } from "./threads/thread-service.js";
export { checkThreadId } from "./threads/thread-id.js";
export { StoreService } from "./store/store-service.js";
export { accessOf, ownerLabel, reaches, scopeHeader, serverAccess } from "./owners/access.js";
export type { Access } from "./owners/access.js";
export { openSqliteConnection, openPostgresConnection, listenOnPostgres, columnList, createTablesSql, placeholders, recordOf, rowParameters } from "./sql.js";
export type { SqlConnection, SqlDatabase, SqlDialect, SqlStatement, Column, Table, PostgresListener, PostgresListenerOptions } from "./sql.js";
export { AssistantService } from "./assistants/assistant-service.js";
export type { AssistantServiceOptions, AssistantCreate, AssistantUpdate, AssistantChoice, AssistantSettingsCheck } from "./assistants/assistant-service.js";
export { SqlAssistantStore } from "./assistants/sql-assistant-store.js";
export type { Assistant, AssistantVersionRecord, AssistantSearch } from "./assistants/assistant-records.js";
export { readAssistantSettings, checkAssistantSettings, settingFields, maxInstructionsChars, assistantSettingsJsonSchema } from "./assistants/assistant-settings.js";
export type { AssistantSettings, AssistantCatalog } from "./assistants/assistant-settings.js";
export { selects, selector, entryMatches, globMatches } from "./assistants/name-selection.js";
export type { NameSelection } from "./assistants/name-selection.js";
export { CronService } from "./crons/cron-service.js";
export type { CronServiceOptions } from "./crons/cron-service.js";
export { CronScheduler } from "./crons/cron-scheduler.js";
export type { CronSchedulerOptions, CronFire, OnMissed } from "./crons/cron-scheduler.js";
export { CronSchedule } from "./crons/cron-schedule.js";
export { SqlCronStore, cronsChannel } from "./crons/sql-cron-store.js";
export { cronBodySchema } from "./crons/cron-request.js";
export type { CronBody } from "./crons/cron-request.js";
export type { CronRecord, CronPause, CronSearch, CronFilter } from "./crons/cron-record.js";
