import type { IncomingMessage, ServerResponse } from "node:http";
import type { CodeModeMcpEndpoint, CodeModeMcpEndpointOptions } from "./code-mode-mcp-endpoint.js";
import { checkSessionIdPrefix } from "./session-id-prefix.js";

/** What mountCodeModeEndpoint needs of an endpoint. */
export interface McpEndpointHandler {
  handle(request: IncomingMessage, response: ServerResponse, body?: unknown, caller?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A CodeModeMcpEndpoint made on the first request to /mcp: the endpoint and both MCP server SDKs it
 * runs on load then, not when the agent server starts (most processes never serve /mcp). Its options
 * are checked at once, as the endpoint's constructor would; closed before any request, it loads
 * nothing, and a request after that is refused as by a closed endpoint.
 */
export class LazyCodeModeMcpEndpoint implements McpEndpointHandler {
  private endpoint: Promise<CodeModeMcpEndpoint> | undefined;
  private closed = false;

  constructor(private readonly options: CodeModeMcpEndpointOptions) {
    checkSessionIdPrefix(options.sessionIdPrefix);
  }

  async handle(request: IncomingMessage, response: ServerResponse, body?: unknown, caller?: string): Promise<void> {
    return (await this.load()).handle(request, response, body, caller);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.endpoint) await (await this.endpoint).close();
  }

  private load(): Promise<CodeModeMcpEndpoint> {
    this.endpoint ??= import("./code-mode-mcp-endpoint.js").then(async ({ CodeModeMcpEndpoint }) => {
      const endpoint = new CodeModeMcpEndpoint(this.options);
      if (this.closed) await endpoint.close();
      return endpoint;
    });
    return this.endpoint;
  }
}
