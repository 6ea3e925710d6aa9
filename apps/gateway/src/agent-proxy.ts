import httpProxy from "@fastify/http-proxy";
import { checkRequestSource, ThinktankError, type Config, type RequestGuardPolicy } from "@thinktank/core";
import type { FastifyInstance } from "fastify";

/** Where the gateway reaches the agent server: console.agent_url, else agent.host:port (a wildcard address is reached on loopback). */
export function agentUpstream(config: Config): string {
  if (config.console.agent_url) return config.console.agent_url.replace(/\/+$/, "");
  const { host, port } = config.agent;
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "0:0:0:0:0:0:0:0" ? "::1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * The agent server's API under the gateway's origin (docs/console.md, "One origin"):
 * `/agent/<path>` goes to `<upstream>/<path>` with @fastify/http-proxy (bodies and SSE streamed
 * both ways, unbuffered; hop-by-hop headers dropped by the library). The gateway's Host and Origin
 * checks have run (its onRequest guard); the agent then sees its own Host (the library sets it to
 * the upstream's) and, for a request whose Origin the gateway accepts for a mutation, its own
 * origin, so no CORS or allowed_origins is configured by the user. An Origin the gateway would not
 * accept is passed on unchanged (the agent refuses it: a GET that cancels a run on disconnect
 * stays guarded). Credentials (keys, tokens, the console cookie and its CSRF header) pass through:
 * the agent authenticates every request itself, so the gateway does not (route config `forwarded`).
 */
export function registerAgentProxy(app: FastifyInstance, config: Config, policy: RequestGuardPolicy): void {
  const upstream = agentUpstream(config);
  const upstreamOrigin = new URL(upstream).origin;
  app.register(async (scope) => {
    // Bodies go through as streams: the agent applies its own limits (uploads: files.*), not the gateway's parsers.
    scope.removeAllContentTypeParsers();
    await scope.register(httpProxy, {
      upstream,
      prefix: "/agent",
      rewritePrefix: "",
      config: { access: "public", forwarded: true },
      // A run's stream lasts as long as the run: no reply timeout of the proxy's own.
      http: { requestOptions: { timeout: 0 } },
      replyOptions: {
        // The agent down or gone mid-answer: our error shape, saying where the gateway looked.
        onError: (reply, { error }) => {
          if (reply.sent || reply.raw.headersSent) return void reply.raw.destroy();
          reply.request.log.warn({ err: error, upstream }, "the agent server did not answer the console's /agent request");
          void reply.send(new ThinktankError("SERVICE_UNAVAILABLE", `the agent server at ${upstream} did not answer (${(error as Error).message}): is it running? Set console.agent_url (THINKTANK_AGENT_URL) if it listens elsewhere`));
        },
        rewriteRequestHeaders: (request, headers) => {
          const out: Record<string, string | string[] | undefined> = { ...headers };
          if (typeof request.headers.origin === "string" && checkRequestSource("POST", request.headers, policy).ok) out.origin = upstreamOrigin;
          return out as typeof headers;
        },
      },
    });
  });
}
