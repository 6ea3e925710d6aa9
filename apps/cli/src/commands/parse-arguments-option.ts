import { ThinktankError } from "@thinktank/core";

/** `--args '<json>'` of `mcp call` and `tools call`: a JSON object of the tool's arguments; none means `{}`. */
export function parseArgumentsOption(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ThinktankError("INVALID_JSON", `--args is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new ThinktankError("BAD_REQUEST", `--args must be a JSON object of the tool's arguments, got ${Array.isArray(value) ? "a list" : JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}
