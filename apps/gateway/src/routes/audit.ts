import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

const filter = (description: string) => ({ type: "string", minLength: 1, maxLength: 300, description }) as const;
const query = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 500, default: 50, description: "How many entries at most" },
    before: { type: "string", minLength: 1, maxLength: 200, description: "The `next` of the previous page: entries older than it" },
    actor: filter("Only this caller's entries (a caller id: admin, usr_<hex>, jwt:<claim>)"),
    action: filter("Only this action (e.g. plugin.install, skill.settings, user.create, auth.failed)"),
    target: filter("Only entries about this target (a plugin, skill, server, user id, or `METHOD /route` for refusals)"),
  },
} as const;
const entrySchema = {
  type: "object",
  additionalProperties: true,
  required: ["id", "at", "action", "outcome"],
  properties: {
    id: { type: "string" },
    at: { type: "string", description: "When (ISO 8601)" },
    actor: {
      type: "object",
      required: ["id", "name", "role"],
      description: "Who acted (absent for an anonymous caller: a failed authentication, a missing credential)",
      properties: { id: { type: "string" }, name: { type: "string" }, role: { type: "string", enum: ["admin", "user"] }, auth: { type: "string", enum: ["key", "jwt", "local"] } },
    },
    action: { type: "string" },
    target: { type: "string" },
    outcome: { type: "string", enum: ["ok", "denied", "failed"] },
    source: { type: "string", description: "The request's source address" },
    detail: { type: "object", additionalProperties: true, description: "What else the change says (the status, the settings sent; never a secret)" },
  },
} as const;

/** GET /api/audit: who changed what, newest first (administrators). */
const auditRoutes: RoutePlugin = async (app, { identity }) => {
  app.get<{ Querystring: { limit: number; before?: string; actor?: string; action?: string; target?: string } }>(
    "/api/audit",
    {
      config: { access: "admin" },
      schema: {
        summary: "The audit log, newest first: installs, enablement, trust, servers, sign-ins and sign-outs, users and keys, failed authentications and refusals",
        description: "Filter by `actor`, `action` and `target`; page with `limit` and the answer's `next` as `before`. Never holds a secret.",
        tags: ["users"],
        querystring: query,
        response: { 200: { type: "object", required: ["entries"], properties: { entries: { type: "array", items: entrySchema }, next: { type: "string", description: "Pass as `before` for the next (older) page; absent on the last" } } }, ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (request) => {
      const { limit, before, actor, action, target } = request.query;
      const page = await identity().audit.list({ limit, ...(before ? { before } : {}), ...(actor ? { actor } : {}), ...(action ? { action } : {}), ...(target ? { target } : {}) });
      return page.next ? { entries: page.entries, next: page.next } : { entries: page.entries };
    },
  );
};

export default auditRoutes;
