import { apiKeyMatches, presentedApiKey, type Caller } from "@thinktank/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { McpEndpointHandler } from "./lazy-code-mode-endpoint.js";

/** Who the request's headers name: a caller, none (no credentials), or wrong credentials with the reason. */
export type EndpointAuthentication = (headers: FastifyRequest["headers"]) => Promise<{ ok: true; caller: Caller | undefined } | { ok: false; reason: string }>;

export interface MountCodeModeEndpointOptions {
  /** @default "/mcp" */
  readonly path?: string;
  /**
   * THINKTANK_API_KEY (config.api_key): when set, every request needs `X-API-Key: <key>` or
   * `Authorization: Bearer <key>` (constant-time comparison), else 401. Checked here too, so the
   * endpoint is safe wherever it is mounted, not only behind the agent server's own hook.
   */
  readonly apiKey?: string;
  /**
   * Who calls (the agent server's identity.authenticate): every request needs a caller, else 401
   * UNAUTHENTICATED. Checked here too, for the same reason as apiKey, which it replaces when given.
   * @default the apiKey check
   */
  readonly authenticate?: EndpointAuthentication;
  /** Called when the Fastify app closes, after the sessions (e.g. to close the runtime behind them). */
  readonly onClose?: () => Promise<void>;
}

/** Mounts the MCP endpoint (streamable HTTP: POST, GET and DELETE) on a Fastify app. */
export function mountCodeModeEndpoint(app: FastifyInstance, endpoint: McpEndpointHandler, options: MountCodeModeEndpointOptions = {}): void {
  const { apiKey } = options;
  app.route({
    method: ["GET", "POST", "DELETE"],
    url: options.path ?? "/mcp",
    handler: async (request, reply) => {
      let caller: Caller | undefined;
      if (options.authenticate) {
        const outcome = await options.authenticate(request.headers);
        const problem = !outcome.ok ? `the credentials are not valid (${outcome.reason})` : outcome.caller === undefined ? "this endpoint needs a caller" : undefined;
        if (problem || !outcome.ok) return reply.code(401).send({ code: "UNAUTHENTICATED", message: `${problem}: send X-API-Key: <key> or Authorization: Bearer <key or token>` });
        caller = outcome.caller;
      } else if (apiKey !== undefined && !apiKeyMatches(presentedApiKey(request.headers), apiKey)) {
        return reply.code(401).send({ code: "UNAUTHENTICATED", message: "missing or wrong API key: send X-API-Key: <key> or Authorization: Bearer <key>" });
      }
      // The SDK transport writes the response itself (JSON or an SSE stream).
      reply.hijack();
      try {
        // A session is its caller's: their programs run for them, nobody else may use its id.
        await endpoint.handle(request.raw, reply.raw, request.body, caller?.id);
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
