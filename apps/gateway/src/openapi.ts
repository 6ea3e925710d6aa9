import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { mutatingMethods } from "@thinktank/core";
import type { FastifyInstance } from "fastify";

/**
 * OpenAPI 3 from the routes' own JSON Schemas: the document at GET /openapi.json, the docs UI
 * at /docs. Mutating operations are marked as needing the API key.
 */
export function registerOpenApi(app: FastifyInstance): void {
  app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Thinktank gateway",
        version: "0.1.0",
        description: "REST API for skills, plugins, script tools and MCP servers. Errors answer `{ code, message, details? }`.",
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
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.some((method) => mutatingMethods.has(method))) return { schema, url };
      return { schema: { ...schema, security: [{ apiKey: [] }, { bearer: [] }] } as typeof schema, url };
    },
  });
  app.register(swaggerUi, { routePrefix: "/docs" });
  app.register(async (scope) => {
    scope.get("/openapi.json", { schema: { summary: "This API's OpenAPI document", tags: ["meta"], response: { 200: { type: "object", additionalProperties: true } } } }, async () => scope.swagger());
  });
}
