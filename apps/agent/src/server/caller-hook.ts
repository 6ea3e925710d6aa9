import type { FastifyInstance, FastifyRequest } from "fastify";
import { ThinktankError, type Caller } from "@thinktank/core";
import type { Identity } from "@thinktank/identity";
import { accessOf, scopeHeader, type Access } from "@thinktank/runs";

declare module "fastify" {
  interface FastifyRequest {
    /** Who calls, set by the auth hook (every route but /healthz has one). */
    caller: Caller | undefined;
  }
}

export interface CallerHookOptions {
  /** Users, keys and the audit log: who the credentials name. */
  readonly identity: Identity;
  /** The server runs without THINKTANK_API_KEY (loopback only): no credentials then means the local operator. */
  readonly keyless: boolean;
}

const credentialsHint = "send X-API-Key: <key> or Authorization: Bearer <key or token>";

/**
 * Who calls (docs/architecture.md, "Users: who calls, what they own"): every route but
 * `GET /healthz` needs a caller, `/mcp` included. The hook resolves one from `X-API-Key` or
 * `Authorization: Bearer` (identity.authenticate, as the gateway does) and sets `request.caller`:
 * wrong credentials are 401 UNAUTHENTICATED (recorded in the audit log), so are missing ones,
 * except on a key-less server (loopback only), where they mean the local operator.
 */
export function registerCallerHook(app: FastifyInstance, options: CallerHookOptions): void {
  const { identity, keyless } = options;
  app.decorateRequest("caller", undefined);
  app.addHook("onRequest", async (request) => {
    if (request.method === "OPTIONS" || request.url === "/healthz") return;
    // The console's session cookie counts too (it arrives through the gateway's /agent proxy), with its CSRF token on mutations.
    const outcome = await identity.authenticate(request.headers, { keyless, method: request.method });
    if (!outcome.ok) {
      await identity.audit.record({ actor: undefined, action: "auth.failed", target: `agent ${request.method} ${request.url.split("?")[0]}`, outcome: "failed", source: request.ip, detail: { reason: outcome.reason, ...(outcome.code ? { code: outcome.code } : {}) } });
      if (outcome.code === "CSRF_FAILED") throw new ThinktankError("CSRF_FAILED", `${outcome.reason}: a request with the console's session cookie that changes something must send x-csrf-token`);
      if (outcome.code === "SESSION_EXPIRED") throw new ThinktankError("SESSION_EXPIRED", `the console session has ended (${outcome.reason}): sign in again`);
      throw new ThinktankError("UNAUTHENTICATED", `the credentials are not valid (${outcome.reason}): ${credentialsHint}`);
    }
    if (outcome.caller === undefined) throw new ThinktankError("UNAUTHENTICATED", `this server needs a caller: ${credentialsHint}`);
    request.caller = outcome.caller;
  });
}

/**
 * The caller's Access to threads, runs and store items (@thinktank/runs): their own, any by id for
 * an administrator, and everyone's in lists when an administrator sends `X-Thinktank-Scope: all`.
 */
export function accessFor(request: FastifyRequest): Access {
  const caller = request.caller;
  // The hook sets a caller on every route that reaches here; a route without one is a wiring bug, never an open door.
  if (!caller) throw new ThinktankError("UNAUTHENTICATED", `this server needs a caller: ${credentialsHint}`);
  return accessOf(caller, request.headers[scopeHeader]);
}
