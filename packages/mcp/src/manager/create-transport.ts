import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_INHERITED_ENV_VARS } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedServerConfig } from "../servers/server-entry.js";

/**
 * The SDK transport for a resolved config. For stdio the child gets exactly `config.env`: the SDK
 * adds a few host variables of its own (USER, SHELL, ...) and those are blanked out here, because
 * Node leaves variables whose value is undefined out of the child's environment. A remote server's
 * requests go through `fetch` when given (the OAuth token source adds its bearer token there).
 */
export function createTransport(config: ResolvedServerConfig, options: { readonly fetch?: FetchLike } = {}): Transport {
  const fetchOption = options.fetch ? { fetch: options.fetch } : {};
  switch (config.transport) {
    case "stdio": {
      const env: Record<string, string | undefined> = {};
      for (const name of DEFAULT_INHERITED_ENV_VARS) env[name] = undefined;
      Object.assign(env, config.env);
      return new StdioClientTransport({
        command: config.command,
        args: [...config.args],
        env: env as Record<string, string>,
        ...(config.cwd ? { cwd: config.cwd } : {}),
        stderr: "pipe",
      });
    }
    case "sse":
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } }, ...fetchOption });
    case "http":
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } }, ...fetchOption });
  }
}
