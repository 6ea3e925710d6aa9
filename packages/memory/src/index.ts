// Public API of @thinktank/memory: what the agent and the gateway use, and what README.md documents.

export { MemoryStore } from "./memory-store.js";
export type { MemoryStoreOptions } from "./memory-store.js";
export { UserMemory } from "./user-memory.js";
export type { MemoryFile, MemoryLimits } from "./user-memory.js";
export { maxMemoryDepth, maxMemoryNameBytes, memoryPathOf, memoryRoot, resolveMemoryPath } from "./memory-paths.js";
export type { MemoryPath, ResolveMemoryPathOptions } from "./memory-paths.js";
export { maxViewChars, memoryCommandJsonSchema, memoryToolDescription, parseMemoryCommand, runMemoryCommand } from "./memory-commands.js";
export type { MemoryCommand, MemoryCommandResult } from "./memory-commands.js";
export { memoryDigest, memoryDigestPreamble } from "./memory-digest.js";
export type { MemoryDigestOptions } from "./memory-digest.js";
export { exportMemoryZip } from "./export-memory-zip.js";
export { chosenMemorySettings, memorySettingsFor, setMemorySettings } from "./memory-settings.js";
export type { MemorySettings, MemorySettingsChoice } from "./memory-settings.js";
export { runAutoMemoryPass } from "./auto/auto-memory-pass.js";
export type { AutoMemoryPassOptions, AutoMemoryPassResult } from "./auto/auto-memory-pass.js";
export { AutoMemoryScheduler } from "./auto/auto-memory-scheduler.js";
export type { AutoMemoryBatch, AutoMemorySchedulerOptions } from "./auto/auto-memory-scheduler.js";
export { autoMemoryRequest, autoMemorySystemPrompt, shownEntries } from "./auto/auto-memory-prompt.js";
export { looksLikeInstruction, ProvenanceGuard } from "./auto/provenance-guard.js";
export type { GuardVerdict } from "./auto/provenance-guard.js";
export type { MemoryTranscriptEntry } from "./auto/memory-transcript.js";
