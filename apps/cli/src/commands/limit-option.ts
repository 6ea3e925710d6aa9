import { usageError } from "./subcommand-group.js";

/** A `--limit K` option: a positive integer, else a usage error. */
export function limitOption(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1) throw usageError(`--limit must be a positive integer; got '${value}'`);
  return limit;
}
