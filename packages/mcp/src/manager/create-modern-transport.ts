import { StreamableHTTPClientTransport, type FetchLike, type Transport } from "@modelcontextprotocol/client";
import type { ResolvedServerConfig } from "../servers/server-entry.js";
import type { CreateTransportOptions } from "./create-transport.js";

/**
 * The `@modelcontextprotocol/client` (v2) transport for a 2026-07-28 session over streamable
 * HTTP, with the entry's headers and the token source's fetch. stdio needs no v2 transport (the
 * wire is the same: ServerConnection runs the v2 Client over createTransport's child, shared with
 * a 2025-era fallback by StdioHandOff); the legacy SSE transport has no 2026-07-28 binding: undefined.
 */
export function createModernTransport(config: ResolvedServerConfig, options: Pick<CreateTransportOptions, "fetch">): Transport | undefined {
  switch (config.transport) {
    case "stdio":
      return undefined;
    case "http":
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } }, ...(options.fetch ? { fetch: options.fetch as FetchLike } : {}) });
    case "sse":
      return undefined;
  }
}
