import crypto from "node:crypto";
import type { FastifyRequest } from "fastify";

/** The key a request carries: `X-API-Key: <key>` or `Authorization: Bearer <key>`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers["x-api-key"];
  if (typeof header === "string" && header.length > 0) return header;
  const authorization = request.headers.authorization;
  const match = typeof authorization === "string" ? /^Bearer\s+(.+)$/i.exec(authorization) : null;
  return match?.[1];
}

/** Constant-time comparison (digests first, so the length of the key does not leak either). */
export function keyMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = crypto.createHash("sha256").update(presented).digest();
  const b = crypto.createHash("sha256").update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for a Host header naming this machine's loopback (any port). Guards against DNS rebinding when there is no key. */
export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.startsWith("[") ? hostHeader.slice(0, hostHeader.indexOf("]") + 1) : hostHeader.split(":")[0];
  return loopbackHosts.has((host ?? "").toLowerCase());
}

/** True for an Origin on this machine's loopback (a local UI such as agent-chat-ui on localhost:3000). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.host);
  } catch {
    return false;
  }
}
