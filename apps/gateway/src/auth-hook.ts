import { createHash, timingSafeEqual } from "node:crypto";
import { ThinktankError } from "@thinktank/core";
import type { FastifyRequest } from "fastify";

/** Methods that change something: these need the API key when one is configured. */
export const mutatingMethods: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

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
 * The onRequest check of DESIGN.md §3: with an API key configured, a mutating request must
 * carry it as `X-API-Key: <key>` or `Authorization: Bearer <key>`. Compared as SHA-256 digests
 * with timingSafeEqual, so neither the content nor the length of the key leaks through timing.
 * Runs before the body is read, so an unauthenticated upload is never consumed.
 */
export function createAuthHook(apiKey: string | undefined): (request: FastifyRequest) => Promise<void> {
  if (apiKey === undefined || apiKey === "") return async () => undefined;
  const expected = digest(apiKey);
  return async (request) => {
    if (!mutatingMethods.has(request.method) && request.routeOptions.config.requiresApiKey !== true) return;
    const presented = presentedKey(request.headers);
    if (presented === undefined) {
      throw new ThinktankError("UNAUTHORIZED", "this route changes data or returns sensitive data and needs the API key: send X-API-Key: <key> or Authorization: Bearer <key>");
    }
    if (!timingSafeEqual(digest(presented), expected)) throw new ThinktankError("UNAUTHORIZED", "the API key is not valid");
  };
}

function presentedKey(headers: FastifyRequest["headers"]): string | undefined {
  const direct = headers["x-api-key"];
  if (typeof direct === "string" && direct !== "") return direct;
  const authorization = headers.authorization;
  if (typeof authorization === "string") {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1]) return match[1];
  }
  return undefined;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
