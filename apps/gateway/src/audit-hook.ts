import type { Identity } from "@thinktank/identity";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The one place the gateway's changes reach the audit log: a route that changes something names
 * its action in its config (`config: { audit: "plugin.install" }`), and every call of it is
 * recorded before the answer is sent (so a client that got the answer finds the record): who
 * (request.caller), what (the action, the target: the route's `:id`/`:name`, or what the route set
 * in `request.audit`), the outcome from the status, the source address, and the detail: the status,
 * the body fields the route lists in `auditFields`, and the route's own `request.audit.detail`.
 * Never a secret: bodies are not copied unless a field is named, and headers never are.
 */
export function createAuditHook(identity: () => Identity): (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown> {
  return async (request, reply, payload) => {
    const { audit: action, auditFields } = request.routeOptions.config;
    const note = request.audit;
    if (!action || note?.recorded) return payload;
    const status = reply.statusCode;
    const outcome = note?.outcome ?? (status < 400 ? "ok" : status === 401 || status === 403 ? "denied" : "failed");
    const target = note?.target ?? paramTarget(request.params);
    await identity().audit.record({
      actor: note?.actor ?? request.caller,
      action,
      ...(target === undefined ? {} : { target }),
      outcome,
      source: request.ip,
      detail: { status, ...bodyFields(request.body, auditFields), ...note?.detail },
    });
    return payload;
  };
}

function paramTarget(params: unknown): string | undefined {
  const { id, name, key_id: keyId } = (params ?? {}) as Record<string, unknown>;
  const main = typeof id === "string" ? id : typeof name === "string" ? name : undefined;
  if (main !== undefined && typeof keyId === "string") return `${main}/${keyId}`;
  return main;
}

/** The named fields of a JSON body that are booleans, numbers or short strings. */
function bodyFields(body: unknown, fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields || !body || typeof body !== "object" || Array.isArray(body)) return {};
  const picked: Record<string, unknown> = {};
  for (const field of fields) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === "boolean" || typeof value === "number" || (typeof value === "string" && value.length <= 200)) picked[field] = value;
  }
  return picked;
}
