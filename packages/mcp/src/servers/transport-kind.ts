import type { McpServerEntry, McpTransportKind } from "./server-entry.js";

const aliases: Readonly<Record<string, McpTransportKind>> = {
  stdio: "stdio",
  sse: "sse",
  http: "http",
  "streamable-http": "http",
  streamablehttp: "http",
  streamable_http: "http",
};

/**
 * The transport an entry asks for. `type` wins (case-insensitive, with the common spellings of
 * streamable HTTP); without it, a `command` means stdio and a lone `url` means streamable HTTP,
 * the current remote transport. Undefined when `type` is a value we do not know.
 */
export function transportKindOf(entry: McpServerEntry): McpTransportKind | undefined {
  if (typeof entry.type === "string" && entry.type.trim() !== "") {
    return aliases[entry.type.trim().toLowerCase()];
  }
  if (entry.command !== undefined) return "stdio";
  if (entry.url !== undefined) return "http";
  return "stdio";
}
