// Public API of @thinktank/mcp: every export is listed here by name.
export { readCatalog, readCatalogFile } from "./catalog/read-catalog.js";
export type { CatalogServer, CatalogTool, CatalogSkip } from "./catalog/catalog-types.js";
export { modelToolNames, sanitizeNamePart } from "./naming/model-tool-names.js";
export type { ModelToolNaming, ModelToolNamesOptions, ModelToolServer, ModelToolRef, ModelToolRename, ModelToolRenameReason, ModelToolCollision } from "./naming/model-tool-names.js";
export { catalogFileName, readCachedToolList } from "./catalog/cached-tool-list.js";
export type { CachedToolList } from "./catalog/cached-tool-list.js";
export { writeCatalogFile, removeCatalogFile } from "./catalog/write-catalog-file.js";
export { resolveServerConfig } from "./servers/resolve-server-config.js";
export type { ResolveServerOptions } from "./servers/resolve-server-config.js";
export { transportKindOf } from "./servers/transport-kind.js";
export { entryHash, resolvedConfigHash, stableStringify } from "./servers/config-hash.js";
export { redactUrl } from "./servers/redact-url.js";
export type { McpServerEntry, McpTransportKind, ResolvedServerConfig, StdioServerConfig, RemoteServerConfig, ServerResolution } from "./servers/server-entry.js";
export { McpManager } from "./manager/mcp-manager.js";
export type { McpManagerOptions, McpSettings, ManagerLogger, ServerState, ServerStatus, CallOptions, ToolsChangedEvent, SyncReport, ConnectProgress } from "./manager/manager-types.js";
export { loadManagedTools, loadAllManagedTools } from "./langchain/load-managed-tools.js";
export type { LoadManagedToolsOptions } from "./langchain/load-managed-tools.js";
