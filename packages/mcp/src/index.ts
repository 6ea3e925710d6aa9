// Public API of @thinktank/mcp: every export is listed here by name.
export { readCatalog, readCatalogFile } from "./catalog/read-catalog.js";
export type { CatalogServer, CatalogTool, CatalogSkip } from "./catalog/catalog-types.js";
