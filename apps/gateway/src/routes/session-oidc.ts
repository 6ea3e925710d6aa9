import { ThinktankError, type Config } from "@thinktank/core";
import type { Identity } from "@thinktank/identity";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isHttps, type SessionAnswer, type StartSessionInput } from "./session.js";

export interface OidcRouteContext {
  readonly config: Config;
  readonly identity: () => Identity;
  readonly methods: SessionAnswer["methods"];
  readonly startSession: (request: FastifyRequest, reply: FastifyReply, input: StartSessionInput) => Promise<SessionAnswer>;
}

const callbackPath = "/api/session/oidc/callback";
/** Binds a sign-in to the browser that started it: Lax, since the provider sends the browser back with a cross-site top-level GET. */
const browserCookie = "thinktank_oidc";
const failedTo = "/?signin_error=OIDC_SIGN_IN_FAILED";

/**
 * The console's OpenID sign-in (identity's OidcSignIn does the protocol): start answers 302 to the
 * provider (authorization code, PKCE S256, state, nonce) with a short-lived httpOnly cookie that
 * binds the sign-in to this browser; the callback finishes it, starts the session (the
 * `thinktank_session` cookie) and answers 302 to `/`, or on any failure 302 to
 * `/?signin_error=OIDC_SIGN_IN_FAILED` (the reason is in the audit log and the log, never in the URL).
 * The redirect URI is console.oidc.callback_url, else this gateway's address as the request named it
 * (as the MCP OAuth sign-in derives its own).
 */
export function registerOidcRoutes(app: FastifyInstance, context: OidcRouteContext): void {
  const { config, identity } = context;
  const redirectUriFor = (request: FastifyRequest): string => config.console.oidc.callback_url ?? `${request.protocol}://${request.host}${callbackPath}`;
  const cookieFor = (request: FastifyRequest, value: string, maxAge: number): string =>
    `${browserCookie}=${value}; Path=/api/session/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${isHttps(request, config) ? "; Secure" : ""}`;

  app.get(
    "/api/session/oidc/start",
    {
      config: { access: "public", selfAuth: true },
      schema: { summary: "Start an OpenID sign-in to the console (302 to the provider)", tags: ["session"], response: { 302: { type: "null" } } },
    },
    async (request, reply) => {
      const oidc = identity().oidc;
      if (!oidc) throw new ThinktankError("NOT_FOUND", "OpenID sign-in is not configured here: set auth.jwt (the issuer) and console.oidc.client_id");
      try {
        const started = await oidc.start(redirectUriFor(request));
        reply.header("set-cookie", cookieFor(request, started.browserToken, 600));
        return reply.redirect(started.url, 302);
      } catch (error) {
        request.log.warn({ err: error }, "console OpenID sign-in could not start (is the issuer reachable?)");
        return reply.redirect(failedTo, 302);
      }
    },
  );

  app.get(
    callbackPath,
    {
      config: { access: "public", selfAuth: true, audit: "session.sign_in" },
      schema: { summary: "Where the OpenID provider sends the browser back (302 to the console)", tags: ["session"], response: { 302: { type: "null" } } },
    },
    async (request, reply) => {
      const oidc = identity().oidc;
      if (!oidc) throw new ThinktankError("NOT_FOUND", "OpenID sign-in is not configured here");
      reply.header("set-cookie", cookieFor(request, "", 0));
      const callbackUrl = new URL(request.url, redirectUriFor(request));
      const outcome = await oidc.finish(callbackUrl, cookieValue(request.headers.cookie, browserCookie));
      if (!outcome.ok) {
        request.audit = { outcome: "denied", detail: { method: "oidc", reason: outcome.reason } };
        return reply.redirect(failedTo, 302);
      }
      await context.startSession(request, reply, { identity: identity(), config, methods: context.methods, caller: outcome.caller, method: "oidc" });
      return reply.redirect("/", 302);
    },
  );
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
