// Public API of @thinktank/http: what the gateway and the agent server use, and what README.md
// documents. Everything else is internal to the package.
export { registerRequestSourceGuard } from "./request-source-guard.js";
export { AccessLogController } from "./access-log-controller.js";
export { lazySchemaCompilers } from "./lazy-schema-compilers.js";
