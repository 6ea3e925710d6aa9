import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { defaultAccess } from "./auth-hook.js";

/**
 * OpenAPI 3 from the routes' own JSON Schemas: the document at GET /openapi.json, the docs UI
 * at /docs (both public). Every operation says who may use it in `x-thinktank-access` (public,
 * user or admin, the route's config) and what it records in the audit log in `x-thinktank-audit`;
 * those that need a caller list the credentials they take.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Thinktank gateway",
        version: "0.1.0",
        description:
          "REST API for skills, plugins, script tools and MCP servers. Errors answer `{ code, message, details? }`. Credentials: `X-API-Key: <key>` or `Authorization: Bearer <key or JWT>`; `x-thinktank-access` on each operation says who may use it (public: anyone; user: any caller; admin: administrators).",
      },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          bearer: { type: "http", scheme: "bearer" },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === "string" ? json.$id : `def-${index}`) },
    transform: ({ schema, url, route }) => {
      // The agent's API under /agent is the agent's to document.
      if (route.config?.forwarded === true) return { schema: { ...schema, hide: true } as unknown as typeof schema, url };
      const access = route.config?.access ?? defaultAccess;
      const security = access === "public" ? {} : { security: [{ apiKey: [] }, { bearer: [] }] };
      const audit = route.config?.audit ? { "x-thinktank-audit": route.config.audit } : {};
      return { schema: { ...schema, ...security, ...audit, "x-thinktank-access": access } as unknown as typeof schema, url };
    },
  });
  app.register(async (scope) => {
    // The docs UI's own routes (its page and assets) are public like the document.
    scope.addHook("onRoute", (route) => {
      route.config = { ...route.config, access: "public" };
    });
    await scope.register(swaggerUi, { routePrefix: "/docs" });
    scope.get("/openapi.json", { schema: { summary: "This API's OpenAPI document", tags: ["meta"], response: { 200: { type: "object", additionalProperties: true } } } }, async () => scope.swagger());
  });
}
