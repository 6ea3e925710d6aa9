import { ThinktankError } from "@thinktank/core";

/**
 * `--args '<json>'` of `mcp call` and `tools call`: a JSON object of the tool's arguments; none means `{}`.
 * Text that is not JSON is INVALID_JSON; JSON that is not an object is BAD_REQUEST, with `details`
 * (`{ usage: true }` makes it a usage error: the usage is printed and the exit code is 2).
 */
export function parseArgumentsOption(text: string | undefined, details?: Record<string, unknown>): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ThinktankError("INVALID_JSON", `--args is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    const got = Array.isArray(value) ? "a list" : JSON.stringify(value);
    throw new ThinktankError("BAD_REQUEST", `--args must be a JSON object of the tool's arguments, got ${got}`, details ? { details } : {});
  }
  return value as Record<string, unknown>;
}
