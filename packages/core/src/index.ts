// Public API of @thinktank/core: every export is listed here by name.
export { errorCodes, httpStatusFor, isErrorCode } from "./errors/error-codes.js";
export type { ErrorCode } from "./errors/error-codes.js";
export { ThinktankError, isThinktankError } from "./errors/thinktank-error.js";
export { ok, fail } from "./errors/result.js";
export type { Result } from "./errors/result.js";
export { loadConfig } from "./config/load-config.js";
export type { LoadConfigOptions } from "./config/load-config.js";
export { configSchema } from "./config/config-schema.js";
export type { Config, ModelConfig, ModelProvider, CodeExecutionMode, SandboxBackend, LogLevel } from "./config/config-types.js";
export { parseFrontmatter } from "./frontmatter/parse-frontmatter.js";
export type { FrontmatterResult, FrontmatterProblem } from "./frontmatter/parse-frontmatter.js";
export { expandString, expandDeep, referencedVariables } from "./env/expand-variables.js";
export type { ExpansionResult } from "./env/expand-variables.js";
