import { apiKeyMatches, mutatingMethods, presentedApiKey, ThinktankError } from "@thinktank/core";
import type { FastifyRequest } from "fastify";

/**
 * A route that only reads but still needs the key (it returns sensitive data, e.g. tool
 * arguments and outputs) sets `config: { requiresApiKey: true }`.
 */
export interface AuthRouteConfig {
  readonly requiresApiKey?: boolean;
}

declare module "fastify/types/context.js" {
  interface FastifyContextConfig {
    requiresApiKey?: boolean;
  }
}

/**
 * The onRequest check of docs/architecture.md ("Auth" under contracts): with an API key configured, a mutating request must
 * carry it as `X-API-Key: <key>` or `Authorization: Bearer <key>`, compared in constant time
 * (`apiKeyMatches`), so neither the content nor the length of the key leaks through timing.
 * Runs before the body is read, so an unauthenticated upload is never consumed.
 */
export function createAuthHook(apiKey: string | undefined): (request: FastifyRequest) => Promise<void> {
  if (apiKey === undefined || apiKey === "") return async () => undefined;
  return async (request) => {
    if (!mutatingMethods.has(request.method) && request.routeOptions.config.requiresApiKey !== true) return;
    const presented = presentedApiKey(request.headers);
    if (presented === undefined) {
      throw new ThinktankError("UNAUTHORIZED", "this route changes data or returns sensitive data and needs the API key: send X-API-Key: <key> or Authorization: Bearer <key>");
    }
    if (!apiKeyMatches(presented, apiKey)) throw new ThinktankError("UNAUTHORIZED", "the API key is not valid");
  };
}
