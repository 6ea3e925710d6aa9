const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True for a UUID: the shape of every run id and checkpoint id this server makes. Any other value
 * names nothing and is not looked up (Postgres fails on a NUL byte in a text parameter).
 */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && uuidPattern.test(value);
}
