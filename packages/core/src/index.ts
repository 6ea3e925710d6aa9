// Public API of @thinktank/core: every export is listed here by name.
export { errorCodes, httpStatusFor, isErrorCode } from "./errors/error-codes.js";
export type { ErrorCode } from "./errors/error-codes.js";
export { ThinktankError, isThinktankError } from "./errors/thinktank-error.js";
export { loadConfig } from "./config/load-config.js";
export type { LoadConfigOptions } from "./config/load-config.js";
export { configSchema } from "./config/config-schema.js";
export type { Config, ModelConfig, ModelProvider, CodeExecutionMode, SandboxBackend, LogLevel } from "./config/config-types.js";
export { parseFrontmatter } from "./frontmatter/parse-frontmatter.js";
export type { FrontmatterResult, FrontmatterProblem, ParseFrontmatterOptions } from "./frontmatter/parse-frontmatter.js";
export { expandString, expandDeep, referencedVariables } from "./env/expand-variables.js";
export type { ExpansionResult } from "./env/expand-variables.js";
export { extractZip } from "./archive/extract-zip.js";
export type { ExtractZipOptions, ExtractedArchive } from "./archive/extract-zip.js";
export { copyFolder } from "./archive/copy-folder.js";
export type { CopyFolderOptions, CopiedFolder } from "./archive/copy-folder.js";
export { checkEntryPath } from "./archive/check-entry-path.js";
export { cleanVirtualPath } from "./paths/clean-virtual-path.js";
export { isInsideFolder } from "./paths/is-inside-folder.js";
export { archiveLimitsFromConfig, defaultArchiveLimits } from "./archive/archive-limits.js";
export type { ArchiveLimits } from "./archive/archive-limits.js";
export { buildZip } from "./archive/build-zip.js";
export type { ZipEntrySpec } from "./archive/build-zip.js";
export { extractTarGz } from "./archive/extract-tar-gz.js";
export { buildTarGz } from "./archive/build-tar-gz.js";
export type { TarEntrySpec } from "./archive/build-tar-gz.js";
export { ExtensionsStore, revisionKey } from "./store/extensions-store.js";
export type { ExtensionsStoreOptions, UpdateOptions, UpdateResult } from "./store/extensions-store.js";
export { extensionsSections, optionalExtensionsSections } from "./store/extensions-types.js";
export type {
  ExtensionsDocument,
  ExtensionsSection,
  OptionalExtensionsSection,
  MarketplaceRecord,
  ExtensionsSnapshot,
  ExtensionsProblem,
  McpServerEntry,
  StdioServerEntry,
  RemoteServerEntry,
  EnabledEntry,
  ToolEntry,
  DeepReadonly,
} from "./store/extensions-types.js";
export { extensionsEntrySchemas, mcpServerEntrySchema, enabledEntrySchema, toolEntrySchema, marketplaceRecordSchema, remoteServerTypes, stdioServerTypes } from "./store/extensions-schemas.js";
export type { ExtensionsEntrySchemas } from "./store/extensions-schemas.js";
export { ExtensionsValidator } from "./store/validate-extensions.js";
export type { ExtensionsValidatorOptions } from "./store/validate-extensions.js";
export { FileLock } from "./store/file-lock.js";
export type { FileLockOptions, HeldLock } from "./store/file-lock.js";
export { etagMatches } from "./store/etag-matches.js";
export { parseJsonDocument } from "./store/parse-json-document.js";
export { maskServerEntry, maskEveryValue, isPlaceholderOnly } from "./store/mask-server-entry.js";
export { createLogger } from "./logging/create-logger.js";
export type { CreateLoggerOptions, Logger } from "./logging/create-logger.js";
export { redactSecrets } from "./logging/redact-secrets.js";
export { isSecretName, looksLikeSecret, maskUrlSecrets, redactedMarker } from "./logging/secret-patterns.js";
export { descendantsOf } from "./process/descendants-of.js";
export { killProcessTree, killChildren, killProcessGroup } from "./process/kill-process-tree.js";
export { RunWork, trackRunWork } from "./process/run-work.js";
export type { RunWorkConfig } from "./process/run-work.js";
export { writeFileDurably } from "./store/write-file-durably.js";
export { reportListening, isServiceReadyMessage } from "./process/service-ready.js";
export type { ServiceReadyMessage } from "./process/service-ready.js";
export { checkRequestSource, isAllowedOrigin, isLoopbackAddress, mutatingMethods } from "./http/request-guard.js";
export type { RequestGuardPolicy, RequestHeadersView, GuardVerdict } from "./http/request-guard.js";
export { presentedApiKey, apiKeyMatches } from "./http/api-key.js";
export { assertSafeBinding } from "./http/assert-safe-binding.js";
export { maxPathParamLength } from "./http/max-path-param-length.js";
export { requestIdFor } from "./http/request-id.js";
export type { ApiKeyHeadersView } from "./http/api-key.js";
