import { ThinktankError } from "@thinktank/core";
import type { Caller } from "@thinktank/core";
import type { Identity } from "@thinktank/identity";
import type { FastifyRequest } from "fastify";

/**
 * Who may use a route (docs/architecture.md, "Users: who calls, what they own"): `public` answers
 * anyone (an anonymous caller gets the shared defaults), `user` needs a caller (any role; the
 * answer is theirs), `admin` needs an administrator. Every route declares one in its config
 * (`config: { access: "user" }`); a route that does not is `admin`.
 */
export type RouteAccess = "public" | "user" | "admin";

/** Where a route's access is read when it declares none: the safe side. */
export const defaultAccess: RouteAccess = "admin";

/**
 * What a request adds to its audit record (audit-hook.ts writes it): routes that know more than
 * their params (the skill an upload installed, the user a POST made) set `request.audit`.
 * Never a secret: no key, token or header value.
 */
export interface AuditNote {
  /** What was changed. @default the route's `:id` or `:name` param */
  readonly target?: string;
  readonly detail?: Record<string, unknown>;
  /** @default from the status: ok below 400, denied for 401/403, failed otherwise */
  readonly outcome?: "ok" | "denied" | "failed";
  /** Who acted, when the request's own caller is not who it acts for (a sign-in's callback). @default request.caller */
  readonly actor?: Caller;
  /** Already recorded (the auth hook records its own refusals). */
  readonly recorded?: boolean;
}

declare module "fastify/types/context.js" {
  interface FastifyContextConfig {
    /** Who may use the route. @default "admin" */
    access?: RouteAccess;
    /** The request is forwarded to a service that authenticates it itself (the agent under /agent): the gateway does not. @default false */
    forwarded?: boolean;
    /** The route looks at the session cookie itself (the console's session routes: an ended session or a missing CSRF token is no refusal of the hook's). @default false */
    selfAuth?: boolean;
    /** The audit action a call of this route records (e.g. `plugin.install`); routes that change something name one. */
    audit?: string;
    /** Body fields copied into the audit record's detail (booleans, short strings; never a secret). */
    auditFields?: readonly string[];
    /** Body fields only an administrator may send on a `user` route (trust decisions): a user sending one gets 403 FORBIDDEN. */
    adminFields?: readonly string[];
  }
}

declare module "fastify" {
  interface FastifyRequest {
    /** Who calls, set by the auth hook: undefined for an anonymous caller of a public route. */
    caller: Caller | undefined;
    /** What this request adds to its audit record (see AuditNote). */
    audit: AuditNote | undefined;
  }
}

export interface AuthHookOptions {
  /** The users, keys and audit log (opened when the app gets ready). */
  readonly identity: () => Identity;
  /** The service runs without THINKTANK_API_KEY (loopback only): no credentials then means the local operator. */
  readonly keyless: boolean;
}

const credentialsHint = "send X-API-Key: <key> or Authorization: Bearer <key or token>";

/**
 * The onRequest check (before any body is read, so an unauthenticated upload is never consumed):
 * resolves the caller from `X-API-Key` or `Authorization: Bearer` (identity.authenticate), sets
 * `request.caller`, and refuses by the route's access: wrong credentials are always 401
 * UNAUTHENTICATED; missing ones are 401 on user and admin routes (unless the service is key-less,
 * where they mean the local operator); a user on an admin route is 403 FORBIDDEN. Refusals go to
 * the audit log with the request's source address (never the credential).
 */
export function createAuthHook(options: AuthHookOptions): (request: FastifyRequest) => Promise<void> {
  const { identity, keyless } = options;
  return async (request) => {
    const { forwarded, selfAuth } = request.routeOptions.config;
    if (forwarded === true) return;
    const access = accessOf(request);
    const outcome = await identity().authenticate(request.headers, { keyless, method: request.method });
    // The session routes look at the cookie themselves (an ended session signs out, it is no error); a wrong key is still 401.
    if (!outcome.ok && outcome.code !== undefined && selfAuth === true) return;
    if (!outcome.ok) {
      await refuse(request, undefined, "auth.failed", "failed", { reason: outcome.reason, ...(outcome.code ? { code: outcome.code } : {}) });
      throw authFailure(outcome);
    }
    const caller = outcome.caller;
    request.caller = caller;
    if (access === "public") return;
    if (caller === undefined) {
      await refuse(request, undefined, "auth.missing", "denied", { access });
      throw new ThinktankError("UNAUTHENTICATED", `this route needs a caller: ${credentialsHint}`, { details: { access } });
    }
    if (access === "admin" && caller.role !== "admin") {
      await refuse(request, caller, "access.denied", "denied", { access });
      throw new ThinktankError("FORBIDDEN", `this route is for administrators; ${caller.id} has the role ${caller.role}`, { details: { access } });
    }
  };

  async function refuse(request: FastifyRequest, actor: Caller | undefined, action: string, outcome: "failed" | "denied", detail: Record<string, unknown>): Promise<void> {
    request.audit = { recorded: true };
    await identity().audit.record({ actor, action, target: `${request.method} ${routeOf(request)}`, outcome, source: request.ip, detail });
  }
}

/**
 * The preValidation check of `adminFields` (a JSON body is parsed by then; a multipart one is read
 * by its route, which checks its own fields): a user's body naming one is 403 FORBIDDEN, recorded.
 */
export function createAdminFieldsHook(identity: () => Identity): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const fields = request.routeOptions.config.adminFields;
    const caller = request.caller;
    if (!fields || caller === undefined || caller.role === "admin" || !request.body || typeof request.body !== "object") return;
    const sent = fields.filter((field) => Object.hasOwn(request.body as object, field));
    if (sent.length === 0) return;
    request.audit = { recorded: true };
    await identity().audit.record({ actor: caller, action: "access.denied", target: `${request.method} ${routeOf(request)}`, outcome: "denied", source: request.ip, detail: { fields: sent } });
    throw new ThinktankError("FORBIDDEN", `${sent.join(" and ")} ${sent.length === 1 ? "is an administrator's decision" : "are administrators' decisions"}: send the request without ${sent.length === 1 ? "it" : "them"}`, { details: { fields: sent } });
  };
}

/**
 * The error for refused credentials: a console cookie whose session ended is SESSION_EXPIRED (401),
 * one without its CSRF token CSRF_FAILED (403), anything else UNAUTHENTICATED (401).
 */
export function authFailure(outcome: { reason: string; code?: "SESSION_EXPIRED" | "CSRF_FAILED" }): ThinktankError {
  if (outcome.code === "CSRF_FAILED") return new ThinktankError("CSRF_FAILED", `${outcome.reason}: a request with the console's session cookie that changes something must send the session's CSRF token as x-csrf-token (GET /api/session answers it)`);
  if (outcome.code === "SESSION_EXPIRED") return new ThinktankError("SESSION_EXPIRED", `the console session has ended (${outcome.reason}): sign in again`);
  return new ThinktankError("UNAUTHENTICATED", `the credentials are not valid (${outcome.reason}): ${credentialsHint}`, { details: { reason: outcome.reason } });
}

/** The route's declared access; a URL no route matches is public (its answer is a 404). */
function accessOf(request: FastifyRequest): RouteAccess {
  if (request.routeOptions.url === undefined) return "public";
  return request.routeOptions.config.access ?? defaultAccess;
}

/** The route pattern (never the URL itself: its query may carry a secret). */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? "(no route)";
}
