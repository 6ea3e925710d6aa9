// Public API of @thinktank/http: every export is listed here by name.
export { registerRequestSourceGuard } from "./request-source-guard.js";
export type { RequestSourceGuardOptions } from "./request-source-guard.js";
export { AccessLogController, accessLogLevel } from "./access-log-controller.js";
export type { AccessLogLevel, RequestOutcome } from "./access-log-controller.js";
