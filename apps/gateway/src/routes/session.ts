import { localOperator, ThinktankError, type Caller, type Config } from "@thinktank/core";
import { sessionCookieName, sessionIdFromCookie, type AuthOutcome, type Identity } from "@thinktank/identity";
import type { FastifyReply, FastifyRequest } from "fastify";
import { authFailure } from "../auth-hook.js";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";
import { registerOidcRoutes } from "./session-oidc.js";

type Method = "loopback" | "api_key" | "oidc";

/** What GET /api/session answers (apps/console/src/api/session.ts, `Session`). */
export interface SessionAnswer {
  signedIn: boolean;
  method?: Method;
  user?: { id: string; name: string; role: "admin" | "user" };
  csrfToken?: string;
  methods: Method[];
  oidcIssuer?: string;
}

const sessionSchema = {
  type: "object",
  required: ["signedIn", "methods"],
  properties: {
    signedIn: { type: "boolean" },
    method: { type: "string", enum: ["loopback", "api_key", "oidc"] },
    user: { type: "object", required: ["id", "name", "role"], properties: { id: { type: "string" }, name: { type: "string" }, role: { type: "string", enum: ["admin", "user"] } } },
    csrfToken: { type: "string", description: "Send it back as x-csrf-token on every request but GET, HEAD and OPTIONS" },
    methods: { type: "array", items: { type: "string", enum: ["loopback", "api_key", "oidc"] } },
    oidcIssuer: { type: "string" },
  },
} as const;

/**
 * The console's sign-in (docs/console.md, "Sign-in and sessions"). GET answers who the browser is
 * (never an error: an ended session answers signed out and clears the cookie); POST signs in with a
 * user key or THINKTANK_API_KEY and sets the `thinktank_session` cookie (httpOnly, SameSite=Strict,
 * Path=/, Secure behind https); DELETE ends the session. On a key-less loopback service the browser
 * is the local administrator without signing in (`method: "loopback"`). OpenID sign-in: session-oidc.ts.
 * These routes resolve their caller themselves (`selfAuth`); the Host and Origin checks apply as everywhere.
 */
const sessionRoutes: RoutePlugin = async (app, { config, identity }) => {
  const keyless = config.api_key === undefined;
  const methods = signInMethods(config);

  app.get(
    "/api/session",
    {
      config: { access: "public", selfAuth: true },
      schema: { summary: "Who the console's browser is signed in as, and how one can sign in", tags: ["session"], response: { 200: sessionSchema } },
    },
    async (request, reply) => {
      let outcome = await identity().authenticate(request.headers, { keyless, method: "GET" });
      if (!outcome.ok && outcome.code === "SESSION_EXPIRED") {
        clearSessionCookie(request, reply, config);
        outcome = await identity().authenticate({}, { keyless, method: "GET" });
      }
      return answerFor(outcome, methods, config);
    },
  );

  app.post<{ Body: { api_key: string } }>(
    "/api/session",
    {
      config: { access: "public", selfAuth: true, audit: "session.sign_in" },
      schema: {
        summary: "Sign the console in with an API key (a user's key or THINKTANK_API_KEY)",
        description: "Sets the `thinktank_session` cookie (httpOnly, SameSite=Strict) and answers the session with its CSRF token. The key itself is never kept.",
        tags: ["session"],
        body: { type: "object", required: ["api_key"], additionalProperties: false, properties: { api_key: { type: "string", minLength: 1, maxLength: 4096 } } },
        response: { 200: sessionSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const signedIn = await identity().signInWithKey(request.body.api_key.trim());
      if (!signedIn.ok) {
        request.audit = { detail: { method: "api_key", reason: signedIn.reason } };
        throw new ThinktankError("UNAUTHENTICATED", `that key does not sign in here (${signedIn.reason}): use a user key (tt_u_...) or the service's THINKTANK_API_KEY`, { details: { reason: signedIn.reason } });
      }
      return startSession(request, reply, { identity: identity(), config, methods, caller: signedIn.caller, method: "api_key", ...(signedIn.keyId ? { keyId: signedIn.keyId } : {}) });
    },
  );

  app.delete(
    "/api/session",
    {
      config: { access: "public", selfAuth: true, audit: "session.sign_out" },
      schema: { summary: "Sign the console out (ends the session)", tags: ["session"], response: { 204: { type: "null" }, ...errorResponses(403) } },
    },
    async (request, reply) => {
      const id = sessionIdFromCookie(request.headers.cookie);
      if (id !== undefined) {
        const outcome = await identity().authenticate({ cookie: request.headers.cookie, "x-csrf-token": request.headers["x-csrf-token"] }, { keyless, method: "DELETE" });
        if (!outcome.ok && outcome.code === "CSRF_FAILED") throw authFailure(outcome);
        if (outcome.ok) {
          await identity().sessions.remove(id);
          request.audit = { actor: outcome.caller, detail: { method: outcome.session?.method } };
        } else request.audit = { detail: { reason: outcome.reason } };
      }
      clearSessionCookie(request, reply, config);
      return reply.code(204).send();
    },
  );

  registerOidcRoutes(app, { config, identity, methods, startSession });
};

/** How one can sign in here: loopback on a key-less service, a key always, OpenID when auth.jwt and console.oidc.client_id are set. */
function signInMethods(config: Config): Method[] {
  return [...(config.api_key === undefined ? (["loopback"] as const) : []), "api_key", ...(config.auth.jwt && config.console.oidc.client_id ? (["oidc"] as const) : [])];
}

function answerFor(outcome: AuthOutcome, methods: Method[], config: Config): SessionAnswer {
  const base: SessionAnswer = { signedIn: false, methods, ...(methods.includes("oidc") && config.auth.jwt ? { oidcIssuer: config.auth.jwt.issuer } : {}) };
  if (!outcome.ok || !outcome.caller) return base;
  const caller = outcome.caller;
  const user = { id: caller.id, name: caller.name, role: caller.role };
  if (outcome.session) return { ...base, signedIn: true, method: outcome.session.method, user, csrfToken: outcome.session.csrfToken };
  // No cookie: the key-less local administrator, or a key or token sent as a header (a script, not the console).
  return { ...base, signedIn: true, method: caller === localOperator ? "loopback" : caller.auth === "jwt" ? "oidc" : "api_key", user };
}

export interface StartSessionInput {
  readonly identity: Identity;
  readonly config: Config;
  readonly methods: Method[];
  readonly caller: Caller;
  readonly method: "api_key" | "oidc";
  readonly keyId?: string;
}

/** Makes the session (ending the one the browser had), sets its cookie, notes the sign-in for the audit log, answers the Session. */
async function startSession(request: FastifyRequest, reply: FastifyReply, input: StartSessionInput): Promise<SessionAnswer> {
  const { identity, config, caller, method } = input;
  const previous = sessionIdFromCookie(request.headers.cookie);
  if (previous !== undefined) await identity.sessions.remove(previous);
  const { id, session } = await identity.sessions.create({ caller, method, ...(input.keyId ? { keyId: input.keyId } : {}) });
  reply.header("set-cookie", sessionCookie(request, config, id, Math.round(config.console.session_hours * 3600)));
  request.audit = { actor: caller, target: caller.id, detail: { method } };
  return answerFor({ ok: true, caller, session: { method, csrfToken: session.csrfToken, expiresAt: session.expiresAt } }, input.methods, config);
}

function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, config: Config): void {
  if (sessionIdFromCookie(request.headers.cookie) !== undefined) reply.header("set-cookie", sessionCookie(request, config, "", 0));
}

/** `thinktank_session=<id>; Path=/; HttpOnly; SameSite=Strict; Max-Age=<s>`, Secure when the console is reached over https. */
export function sessionCookie(request: FastifyRequest, config: Config, value: string, maxAgeSeconds: number): string {
  return `${sessionCookieName}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${isHttps(request, config) ? "; Secure" : ""}`;
}

/** Over https: the request itself, a proxy in front saying so, or a configured https callback. */
export function isHttps(request: FastifyRequest, config: Config): boolean {
  return request.protocol === "https" || request.headers["x-forwarded-proto"] === "https" || (config.console.oidc.callback_url?.startsWith("https:") ?? false);
}

export default sessionRoutes;
