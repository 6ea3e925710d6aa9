import type { FastifyInstance } from "fastify";
import { ThinktankError } from "@thinktank/core";
import type { JsonObject } from "@thinktank/runs";
import type { AgentRouteContext } from "../agent-route-context.js";
import { accessFor } from "../caller-hook.js";

const labels = { type: "array", items: { type: "string" } };
const optionalLabels = { type: ["array", "null"], items: { type: "string" } };
// TTLs in minutes, as LangGraph's store counts them; at most 100 years, so every expiry is a valid date.
const ttl = { type: ["number", "null"], exclusiveMinimum: 0, maximum: 52_560_000 };

interface PutBody {
  namespace: string[];
  key: string;
  value: JsonObject;
  index?: false | string[] | null;
  ttl?: number | null;
}
interface ItemBody {
  namespace: string[];
  key: string;
}
interface SearchBody {
  namespace_prefix?: string[] | null;
  filter?: JsonObject | null;
  query?: string | null;
  limit: number;
  offset: number;
  refresh_ttl?: boolean | null;
}
interface NamespacesBody {
  prefix?: string[] | null;
  suffix?: string[] | null;
  max_depth?: number | null;
  limit: number;
  offset: number;
}

/**
 * The LangGraph store API as the SDK's `client.store` calls it: PUT/GET/DELETE /store/items,
 * POST /store/items/search, POST /store/namespaces. The rules are StoreService's; each call is
 * the caller's (accessFor): their namespaces are kept under their own label, invisible to them.
 */
export function registerStoreRoutes(app: FastifyInstance, context: AgentRouteContext): void {
  const { store } = context;

  app.put<{ Body: PutBody }>(
    "/store/items",
    {
      schema: {
        body: {
          type: "object",
          required: ["namespace", "key", "value"],
          properties: { namespace: labels, key: { type: "string" }, value: { type: "object" }, index: { anyOf: [{ const: false }, optionalLabels] }, ttl },
        },
      },
    },
    async (request, reply) => {
      // `index` picks fields for semantic search, which this store does not offer: false (index nothing) is what it does anyway; a list is refused, not ignored.
      const index = request.body.index;
      if (Array.isArray(index) && index.length > 0) {
        throw new ThinktankError("UNSUPPORTED_FIELD", "index is not supported here: items are not indexed for semantic search (a search's query matches words of the whole value); leave it out, or pass false", { details: { field: "index" } });
      }
      await store.put({ namespace: request.body.namespace, key: request.body.key, value: request.body.value, ttl: request.body.ttl }, accessFor(request));
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: { namespace?: string; key: string; refresh_ttl?: boolean } }>(
    "/store/items",
    { schema: { querystring: { type: "object", required: ["key"], properties: { namespace: { type: "string" }, key: { type: "string" }, refresh_ttl: { type: "boolean" } } } } },
    async (request, reply) => {
      const item = await store.get((request.query.namespace ?? "").split("."), request.query.key, { refreshTtl: request.query.refresh_ttl }, accessFor(request));
      // A missing item is `null` (200), which the SDK's getItem returns as null.
      return reply.type("application/json; charset=utf-8").send(JSON.stringify(item));
    },
  );

  app.delete<{ Body: ItemBody }>(
    "/store/items",
    { schema: { body: { type: "object", required: ["namespace", "key"], properties: { namespace: labels, key: { type: "string" } } } } },
    async (request, reply) => {
      await store.delete(request.body.namespace, request.body.key, accessFor(request));
      return reply.code(204).send();
    },
  );

  app.post<{ Body: SearchBody }>(
    "/store/items/search",
    {
      schema: {
        body: {
          type: "object",
          properties: {
            namespace_prefix: optionalLabels,
            filter: { type: ["object", "null"] },
            query: { type: ["string", "null"] },
            limit: { type: "integer", minimum: 1, maximum: 1000, default: 10 },
            offset: { type: "integer", minimum: 0, default: 0 },
            refresh_ttl: { type: ["boolean", "null"] },
          },
        },
      },
    },
    async (request) => {
      const body = request.body ?? { limit: 10, offset: 0 };
      const items = await store.search({
        namespacePrefix: body.namespace_prefix ?? [],
        filter: body.filter ?? undefined,
        query: body.query ?? undefined,
        limit: body.limit ?? 10,
        offset: body.offset ?? 0,
        refreshTtl: body.refresh_ttl ?? undefined,
      }, accessFor(request));
      return { items };
    },
  );

  app.post<{ Body: NamespacesBody }>(
    "/store/namespaces",
    {
      schema: {
        body: {
          type: "object",
          properties: {
            prefix: optionalLabels,
            suffix: optionalLabels,
            max_depth: { type: ["integer", "null"], minimum: 1 },
            limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
            offset: { type: "integer", minimum: 0, default: 0 },
          },
        },
      },
    },
    async (request) => {
      const body = request.body ?? { limit: 100, offset: 0 };
      const namespaces = await store.listNamespaces({
        prefix: body.prefix ?? undefined,
        suffix: body.suffix ?? undefined,
        maxDepth: body.max_depth ?? undefined,
        limit: body.limit ?? 100,
        offset: body.offset ?? 0,
      }, accessFor(request));
      return { namespaces };
    },
  );
}
