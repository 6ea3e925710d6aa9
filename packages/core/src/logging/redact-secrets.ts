import { isSecretName, maskUrlSecrets, redactedMarker } from "./secret-patterns.js";

const maxDepth = 8;

/**
 * A copy of a log object with secrets masked: values under secret-looking keys, passwords and
 * secret query parameters inside URL strings, and `Bearer`/`Basic` credentials in any string.
 * Only plain objects and arrays are walked; class instances (requests, errors) are left to
 * their serializers. The input is never modified.
 */
export function redactSecrets<T>(value: T): T {
  return walk(value, 0, new WeakSet()) as T;
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object" || depth > maxDepth || seen.has(value)) return value;
  if (Array.isArray(value)) {
    seen.add(value);
    return value.map((item) => walk(item, depth + 1, seen));
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  seen.add(value);
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = isSecretName(key) && child !== undefined && child !== null && child !== "" ? redactedMarker : walk(child, depth + 1, seen);
  }
  return copy;
}

/**
 * Words in free text that are keys of a well-known format (a prefix of knownKeyPattern's and at
 * least 8 more characters) or JWTs: what a program prints on stderr ("bad credentials ghp_…") and
 * a reason or a log line then carries.
 */
const keyWordPattern = /(?<![A-Za-z0-9_-])(?:(?:tt_u_|sk-|sk_live_|sk_test_|rk_live_|pk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abposr]-)[A-Za-z0-9_-]{8,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*)/g;

/** One string: `Bearer`/`Basic` credentials, URL passwords and secret query parameters, and words shaped as well-known keys or JWTs masked. */
export function redactString(text: string): string {
  let result = text.replace(/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${redactedMarker}`).replace(keyWordPattern, redactedMarker);
  if (result.includes("://") || result.includes("?")) result = maskUrlSecrets(result);
  return result;
}
