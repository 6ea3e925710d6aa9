import { createHash } from "node:crypto";
import type { McpServerEntry, ResolvedServerConfig } from "./server-entry.js";
import { transportKindOf } from "./transport-kind.js";

/**
 * The key a live session is kept under: a hash of the resolved config (secrets included, so it
 * changes when a secret changes). Kept in memory only, never written anywhere.
 */
export function resolvedConfigHash(config: ResolvedServerConfig): string {
  return sha256(stableStringify(config));
}

/**
 * A hash of what an entry says about how to reach the server, placeholders as written (no resolved
 * secrets go in). Stored beside a cached tool list so a reader can tell whether it is current.
 */
export function entryHash(entry: McpServerEntry): string {
  const { command, args, env, cwd, url, headers, oauth } = entry;
  return sha256(stableStringify({ transport: transportKindOf(entry) ?? entry.type, command, args, env, cwd, url, headers, oauth }));
}

/** JSON with object keys sorted at every level, so equal values always hash alike. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableStringify(item ?? null)).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${stableStringify(child)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
