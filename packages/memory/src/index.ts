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
