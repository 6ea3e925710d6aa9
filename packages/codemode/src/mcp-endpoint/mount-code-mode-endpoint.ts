import { apiKeyMatches, presentedApiKey } from "@thinktank/core";
import type { FastifyInstance } from "fastify";
import type { CodeModeMcpEndpoint } from "./code-mode-mcp-endpoint.js";

export interface MountCodeModeEndpointOptions {
  /** @default "/mcp" */
  readonly path?: string;
  /**
   * THINKTANK_API_KEY (config.api_key): when set, every request needs `X-API-Key: <key>` or
   * `Authorization: Bearer <key>` (constant-time comparison), else 401. Checked here too, so the
   * endpoint is safe wherever it is mounted, not only behind the agent server's own hook.
   */
  readonly apiKey?: string;
  /** Called when the Fastify app closes, after the sessions (e.g. to close the runtime behind them). */
  readonly onClose?: () => Promise<void>;
}

/** Mounts the MCP endpoint (streamable HTTP: POST, GET and DELETE) on a Fastify app. */
export function mountCodeModeEndpoint(app: FastifyInstance, endpoint: CodeModeMcpEndpoint, options: MountCodeModeEndpointOptions = {}): void {
  const { apiKey } = options;
  app.route({
    method: ["GET", "POST", "DELETE"],
    url: options.path ?? "/mcp",
    handler: async (request, reply) => {
      if (apiKey !== undefined && !apiKeyMatches(presentedApiKey(request.headers), apiKey)) {
        return reply.code(401).send({ code: "UNAUTHORIZED", message: "missing or wrong API key: send X-API-Key: <key> or Authorization: Bearer <key>" });
      }
      // The SDK transport writes the response itself (JSON or an SSE stream).
      reply.hijack();
      try {
        await endpoint.handle(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, "the MCP endpoint failed");
        if (!reply.raw.headersSent) reply.raw.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ code: "INTERNAL", message: "the MCP endpoint failed (see the log)" }));
        else reply.raw.end();
      }
    },
  });
  app.addHook("onClose", async () => {
    await endpoint.close();
    await options.onClose?.();
  });
}
