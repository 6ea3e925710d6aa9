// Public API of @thinktank/mcp: every export is listed here by name.
export { readCatalog, readCatalogFile } from "./catalog/read-catalog.js";
export type { CatalogServer, CatalogTool, CatalogSkip } from "./catalog/catalog-types.js";
export { modelToolNames, sanitizeNamePart } from "./naming/model-tool-names.js";
export type { ModelToolNaming, ModelToolNamesOptions, ModelToolServer, ModelToolRef, ModelToolRename, ModelToolRenameReason, ModelToolCollision } from "./naming/model-tool-names.js";
