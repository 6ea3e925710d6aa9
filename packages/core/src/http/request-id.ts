import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * The request id of an HTTP request (gateway and agent, as Fastify's genReqId): an incoming
 * `X-Request-Id` is kept when it is a plain token (so ids can be followed across services); else a new UUID.
 */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers["x-request-id"];
  if (typeof incoming === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming)) return incoming;
  return randomUUID();
}
