import { createHash, timingSafeEqual } from "node:crypto";

export interface ApiKeyHeadersView {
  readonly "x-api-key"?: string | string[] | undefined;
  readonly authorization?: string | undefined;
}

/** The key a request carries: `X-API-Key: <key>` or `Authorization: Bearer <key>`. */
export function presentedApiKey(headers: ApiKeyHeadersView): string | undefined {
  const direct = headers["x-api-key"];
  if (typeof direct === "string" && direct !== "") return direct;
  const authorization = headers.authorization;
  if (typeof authorization === "string") {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/**
 * Constant-time comparison: both sides are hashed first, so neither the content nor the length
 * of the key leaks through timing.
 */
export function apiKeyMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
