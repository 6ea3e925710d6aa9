import cors from "@fastify/cors";
import { checkRequestFraming, checkRequestSource, isAllowedOrigin, ThinktankError } from "@thinktank/core";
import type { RequestGuardPolicy } from "@thinktank/core";
import type { FastifyInstance } from "fastify";

export interface RequestSourceGuardOptions extends RequestGuardPolicy {
  /** Response headers a browser frontend on an allowed origin may read. */
  readonly exposedHeaders?: readonly string[];
  /**
   * Requests that change state although their method is safe (a GET that cancels a run when the
   * client goes away): they get the Origin checks of a mutation. @default none
   */
  readonly changesState?: (method: string, url: string) => boolean;
}

/**
 * Answers only requests addressed to this service by a name it answers to, and mutating ones
 * only from no browser, its own pages or the allowed origins (docs/architecture.md, "Requests
 * from browsers"); a refusal is a ThinktankError (HOST_NOT_ALLOWED / ORIGIN_NOT_ALLOWED, 403) for
 * the app's error handler. CORS headers go to the allowed origins alone; a preflight from any other
 * origin is answered 403 ORIGIN_NOT_ALLOWED. Register it before auth.
 */
export function registerRequestSourceGuard(app: FastifyInstance, options: RequestSourceGuardOptions): void {
  app.addHook("onRequest", async (request) => {
    // A CORS preflight from an origin that may not call this service: 403 with the reason, so the browser's console says what to configure (without it, no route answers OPTIONS: 404).
    if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined && request.headers.origin !== undefined) {
      const preflight = checkRequestSource("POST", request.headers, options);
      if (!preflight.ok && preflight.code === "ORIGIN_NOT_ALLOWED") {
        throw new ThinktankError("ORIGIN_NOT_ALLOWED", `origin ${JSON.stringify(request.headers.origin.slice(0, 200))} may not call this service from a browser: add it to allowed_origins in config.yaml to let a web frontend on it call this service`);
      }
    }
    const method = options.changesState?.(request.method, request.url) ? "POST" : request.method;
    const verdict = checkRequestSource(method, request.headers, options);
    if (!verdict.ok) throw new ThinktankError(verdict.code, verdict.message);
    const framing = checkRequestFraming(request.raw.rawHeaders, request.raw.url ?? "/", options);
    if (!framing.ok) throw new ThinktankError(framing.code, framing.message);
  });
  app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && isAllowedOrigin(origin, options)),
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    exposedHeaders: [...(options.exposedHeaders ?? [])],
  });
}
