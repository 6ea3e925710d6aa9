// Public API of @thinktank/gateway: every export is listed here by name.
export { buildApp } from "./build-app.js";
export { createGatewayDeps } from "./gateway-deps.js";
export type { GatewayDeps, PluginServer } from "./gateway-deps.js";
export { startGateway } from "./start-gateway.js";
export type { RunningGateway } from "./start-gateway.js";
export { runGateway } from "./run-gateway.js";
export type { RunGatewayOptions } from "./run-gateway.js";
export { errorResponses, errorResponseSchema, toErrorResponse } from "./error-response.js";
export type { ErrorBody } from "./error-response.js";
export { createAuthHook } from "./auth-hook.js";
export type { AuditNote, RouteAccess } from "./auth-hook.js";
export type { RoutePlugin, RouteContext, RouteSummary } from "./route-plugin.js";
