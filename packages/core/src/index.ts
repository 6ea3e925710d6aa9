// Public API of @thinktank/core: what other packages and apps use, and what README.md documents.
// Everything else is internal to the package.

// errors
export { httpStatusFor, isErrorCode } from "./errors/error-codes.js";
export type { ErrorCode } from "./errors/error-codes.js";
export { ThinktankError, isThinktankError } from "./errors/thinktank-error.js";

// config
export { loadConfig } from "./config/load-config.js";
export type { Config, JwtConfig, ModelConfig, CodeExecutionMode, SandboxBackend } from "./config/config-types.js";
export { configSchema, networkPattern } from "./config/config-schema.js";

// frontmatter, ${VAR} expansion
export { parseFrontmatter } from "./frontmatter/parse-frontmatter.js";
export type { FrontmatterProblem } from "./frontmatter/parse-frontmatter.js";
export { expandDeep } from "./env/expand-variables.js";
export { protectedReference, serviceSecretVariables } from "./env/protected-variables.js";

// archives, folder copies, paths
export { extractZip } from "./archive/extract-zip.js";
export { readZipEntries } from "./archive/read-zip-entries.js";
export type { ZipEntryPlan } from "./archive/read-zip-entries.js";
export { extractTarGz } from "./archive/extract-tar-gz.js";
export { copyFolder } from "./archive/copy-folder.js";
export { checkEntryPath } from "./archive/check-entry-path.js";
export { checkNameSegment, escapeHiddenCharacters, removeHiddenCharacters } from "./archive/check-name-segment.js";
export { escapeXml } from "./text/escape-xml.js";
export { editDistance, nearMatches } from "./text/near-matches.js";
export { archiveLimitsFromConfig, defaultArchiveLimits } from "./archive/archive-limits.js";
export type { ArchiveLimits } from "./archive/archive-limits.js";
export { buildZip } from "./archive/build-zip.js";
export type { ZipEntrySpec } from "./archive/build-zip.js";
export { buildTarGz } from "./archive/build-tar-gz.js";
export { cleanVirtualPath } from "./paths/clean-virtual-path.js";
export { isInsideFolder } from "./paths/is-inside-folder.js";
export { userCodeApiDir } from "./paths/user-code-api-dir.js";
export { userFolderName } from "./paths/user-folder-name.js";
export { jsonNestingLimits, jsonTextNesting, valueNestsDeeperThan } from "./json/json-nesting.js";

// the extensions store, files on disk
export { ExtensionsStore } from "./store/extensions-store.js";
export type { ExtensionsSnapshot, McpServerEntry, MarketplaceRecord } from "./store/extensions-types.js";
export { mcpServerEntrySchema } from "./store/extensions-schemas.js";
export { maskServerEntry, maskEveryValue } from "./store/mask-server-entry.js";
export { FileLock } from "./store/file-lock.js";
export type { FileLockOptions } from "./store/file-lock.js";
export { writeFileDurably } from "./store/write-file-durably.js";
export { secureDataFolder } from "./store/secure-data-folder.js";
export type { SecureDataFolderOptions } from "./store/secure-data-folder.js";
export { checkDataFolders } from "./store/check-data-folders.js";
export type { CheckDataFoldersOptions, DataFoldersCheck } from "./store/check-data-folders.js";

// logging and secrets
export { createLogger } from "./logging/create-logger.js";
export type { Logger } from "./logging/create-logger.js";
export { redactSecrets } from "./logging/redact-secrets.js";
export { isSecretName, looksLikeSecret, maskUrlSecrets, redactedMarker } from "./logging/secret-patterns.js";

// processes
export { killProcessTree, killChildren, killProcessGroup } from "./process/kill-process-tree.js";
export { isProcessAlive } from "./store/process-alive.js";
export { RunWork, trackRunWork } from "./process/run-work.js";
export { reportListening, isServiceReadyMessage } from "./process/service-ready.js";
export { findExecutable, defaultSearchPath } from "./process/find-executable.js";
export type { FindExecutableOptions } from "./process/find-executable.js";
export { confineHostProgram } from "./process/confine-host-program.js";
export type { ConfinementPlan, HostMechanism, HostProgram, SpawnLine } from "./process/confine-host-program.js";
export { describeHostIsolation, HostConfinement } from "./process/host-confinement.js";
export type { ConfineResult, HostConfinementOptions, HostIsolation, HostIsolationInfo } from "./process/host-confinement.js";
export { hiddenFromHostPrograms, hostConfinementFor } from "./process/host-confinement-for.js";
export type { HiddenPathsConfig } from "./process/host-confinement-for.js";
export { unprivilegedIds } from "./process/unprivileged-ids.js";

// HTTP rules (no Fastify here: packages/http applies them)
export { checkRequestFraming, checkRequestSource, isAllowedOrigin, isLoopbackAddress, mutatingMethods } from "./http/request-guard.js";
export type { RequestGuardPolicy } from "./http/request-guard.js";
export { presentedApiKey, apiKeyMatches } from "./http/api-key.js";
export { localOperator, operatorId } from "./identity/caller.js";
export type { AuthMethod, Caller, Role } from "./identity/caller.js";
export { assertSafeBinding } from "./http/assert-safe-binding.js";
export { maxPathParamLength } from "./http/max-path-param-length.js";
export { requestIdFor } from "./http/request-id.js";
