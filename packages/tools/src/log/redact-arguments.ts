import { isSecretName, looksLikeSecret, redactedMarker, redactSecrets } from "@thinktank/core";

const maxDepth = 12;

/**
 * A copy of a tool call's arguments fit for the execution log: values under secret-looking keys
 * (token, secret, password, api_key, authorization, ...) and strings that look like keys (known
 * key prefixes, JWTs, long letter-and-digit runs) are replaced by a marker; `Bearer` credentials
 * and URL passwords inside other strings are masked too. The input is never modified.
 */
export function redactArguments<T>(value: T): T {
  return redactSecrets(walk(value, 0)) as T;
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value === "string") return looksLikeSecret(value) ? redactedMarker : value;
  if (value === null || typeof value !== "object" || depth > maxDepth) return value;
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = isSecretName(key) && child !== undefined && child !== null && child !== "" ? redactedMarker : walk(child, depth + 1);
  }
  return copy;
}
