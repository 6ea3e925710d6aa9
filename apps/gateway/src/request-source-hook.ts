import cors from "@fastify/cors";
import { checkRequestSource, isAllowedOrigin, ThinktankError } from "@thinktank/core";
import type { RequestGuardPolicy } from "@thinktank/core";
import type { FastifyInstance } from "fastify";

/**
 * Answers only requests addressed to this gateway by a name it answers to, and mutating ones
 * only from no browser, its own pages or `gateway.allowed_origins` (docs/architecture.md,
 * "Requests from browsers"). CORS headers go to the configured origins alone.
 */
export function registerRequestSourceGuard(app: FastifyInstance, policy: RequestGuardPolicy): void {
  app.addHook("onRequest", async (request) => {
    const verdict = checkRequestSource(request.method, request.headers, policy);
    if (!verdict.ok) throw new ThinktankError(verdict.code, verdict.message);
  });
  app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && isAllowedOrigin(origin, policy)),
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    exposedHeaders: ["etag", "location", "x-request-id"],
  });
}
