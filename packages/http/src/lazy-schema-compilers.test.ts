import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { lazySchemaCompilers } from "./lazy-schema-compilers.js";

const shared = { $id: "Problem", type: "object", required: ["code"], properties: { code: { type: "string" } } } as const;

/** One route with a body schema and response schemas (one through a shared schema), answering what the test says. */
function appWith(options: { lazy: boolean }): FastifyInstance {
  const app = Fastify(options.lazy ? { schemaController: lazySchemaCompilers() } : {});
  app.addSchema(shared);
  app.post<{ Body: { name: string; status?: number } }>(
    "/things",
    {
      schema: {
        body: { type: "object", required: ["name"], additionalProperties: false, properties: { name: { type: "string", minLength: 1 }, status: { type: "integer" } } },
        response: { 200: { type: "object", properties: { name: { type: "string" }, count: { type: "integer" } } }, 404: { $ref: "Problem#" } },
      },
    },
    async (request, reply) => {
      if (request.body.status === 404) return reply.code(404).send({ code: "NOT_FOUND", secret: "never shown" });
      return { name: request.body.name, count: "7", secret: "never shown" };
    },
  );
  return app;
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe("lazySchemaCompilers", () => {
  it("validates and serializes exactly as Fastify's own compilers do", async () => {
    const [lazy, eager] = [appWith({ lazy: true }), appWith({ lazy: false })];
    apps.push(lazy, eager);
    const requests = [{ name: "a" }, { name: "b", status: 404 }, { name: "" }, { other: 1 }, "not json"];
    for (const payload of requests) {
      const [fromLazy, fromEager] = await Promise.all(
        [lazy, eager].map((app) => app.inject({ method: "POST", url: "/things", headers: { "content-type": "application/json" }, payload: typeof payload === "string" ? payload : JSON.stringify(payload) })),
      );
      expect({ status: fromLazy?.statusCode, body: fromLazy?.body }).toEqual({ status: fromEager?.statusCode, body: fromEager?.body });
    }
    // The serializers ran: unknown properties dropped, the count coerced, the shared schema followed.
    expect((await lazy.inject({ method: "POST", url: "/things", payload: { name: "a" } })).json()).toEqual({ name: "a", count: 7 });
    expect((await lazy.inject({ method: "POST", url: "/things", payload: { name: "a", status: 404 } })).json()).toEqual({ code: "NOT_FOUND" });
  });

  it("compiles nothing when the server starts", async () => {
    const app = Fastify({ schemaController: lazySchemaCompilers() });
    apps.push(app);
    // A schema neither compiler can build: Fastify's own would refuse it at ready.
    app.post("/broken", { schema: { body: { type: "object", properties: { a: { $ref: "Missing#" } } }, response: { 200: { $ref: "AlsoMissing#" } } } }, async () => ({}));
    await expect(app.ready()).resolves.toBe(app);
    expect((await app.inject({ method: "POST", url: "/broken", payload: {} })).statusCode).toBe(500);
  });
});
