import type { FastifyInstance, FastifyReply } from "fastify";
import { ThinktankError } from "@thinktank/core";
import { checkThreadId, type Access, type JsonObject, type ThreadJson, type ThreadSearch, type ThreadStatus } from "@thinktank/runs";
import type { AgentRouteContext } from "../agent-route-context.js";
import { accessFor } from "../caller-hook.js";
import { truthy } from "./run-routes.js";

interface ThreadParams {
  thread_id: string;
}

const threadStatus = { enum: ["idle", "busy", "interrupted", "error"] };
const searchProperties = {
  metadata: { type: ["object", "null"] },
  values: { type: ["object", "null"] },
  status: { anyOf: [threadStatus, { type: "null" }] },
  ids: { type: ["array", "null"], items: { type: "string" } },
  limit: { type: "integer", minimum: 1, maximum: 1000, default: 10 },
  offset: { type: "integer", minimum: 0, default: 0 },
  sort_by: { enum: ["thread_id", "status", "created_at", "updated_at", "state_updated_at", null] },
  sort_order: { enum: ["asc", "desc", null] },
  select: { type: ["array", "null"], items: { type: "string" } },
  extract: {},
};
/** A `select` as a query parameter: one field, or the parameter repeated. */
const selectQuery = { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] };
const listOf = (value: string | string[] | undefined): string[] | undefined => (value === undefined ? undefined : [value].flat());
const supersteps = {
  type: ["array", "null"],
  items: { type: "object", required: ["updates"], properties: { updates: { type: "array", items: { type: "object", properties: { values: {}, command: {}, as_node: { type: ["string", "null"] } } } } } },
};

/** A field of the LangGraph API this server does not implement, given a value: refused (422 UNSUPPORTED_FIELD), never ignored. */
function refuseUnsupported(field: string, value: unknown, reason: string): void {
  if (value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)) return;
  throw new ThinktankError("UNSUPPORTED_FIELD", `${field} is not supported here: ${reason}`, { details: { field } });
}
const noTtl = "threads are kept until deleted (DELETE /threads/{thread_id}, POST /threads/prune)";
const noSubgraphs = "a state's tasks do not carry their subgraphs' states here";

interface SearchBody {
  metadata?: JsonObject | null;
  values?: JsonObject | null;
  status?: ThreadStatus | null;
  ids?: string[] | null;
  limit: number;
  offset: number;
  sort_by?: ThreadSearch["sort_by"] | null;
  sort_order?: "asc" | "desc" | null;
  select?: string[] | null;
  extract?: unknown;
}

interface HistoryBody {
  limit?: number;
  before?: string | { configurable?: { checkpoint_id?: string } };
  metadata?: JsonObject;
  checkpoint?: JsonObject;
  select?: string[] | string;
}

/**
 * Threads: create, search, count, get, patch, delete, prune, copy; state (get, update, at a
 * checkpoint) and history. Each as the caller (accessFor): their own threads, another's answered
 * as missing; lists are theirs unless an administrator asks for everyone's.
 */
export function registerThreadRoutes(app: FastifyInstance, context: AgentRouteContext): void {
  const { threads, runs } = context;
  // Records and states name their large strings by blob markers: the body streams the strings in, piece by piece (ThreadService.body).
  const send = (reply: FastifyReply, documents: ThreadJson | readonly ThreadJson[]) => reply.type("application/json; charset=utf-8").send(threads.body(documents));

  type CreateBody = { thread_id?: string; metadata?: JsonObject; if_exists?: "raise" | "do_nothing"; supersteps?: { updates: { values?: unknown; as_node?: string | null; command?: unknown }[] }[] | null; ttl?: unknown };
  app.post<{ Body: CreateBody }>(
    "/threads",
    { schema: { body: { type: "object", properties: { thread_id: { type: "string" }, metadata: { type: "object" }, if_exists: { enum: ["raise", "do_nothing"] }, supersteps, ttl: {} } } } },
    async (request, reply) => {
      const body = request.body ?? {};
      refuseUnsupported("ttl", body.ttl, noTtl);
      const access = accessFor(request);
      const existed = body.thread_id !== undefined && body.if_exists === "do_nothing" ? await threads.get(body.thread_id, access).then(() => true, () => false) : false;
      let thread = await threads.create({ threadId: body.thread_id, metadata: body.metadata, ifExists: body.if_exists }, access);
      // A new thread's first states (an existing one returned by do_nothing is left as it is); a superstep refused leaves no thread behind.
      if (body.supersteps && body.supersteps.length > 0 && !existed) {
        try {
          thread = (await threads.applySupersteps(thread.thread_id, body.supersteps)) ?? thread;
        } catch (error) {
          await threads.delete(thread.thread_id, access).catch(() => undefined);
          throw error;
        }
      }
      return send(reply, threads.recordJson(thread));
    },
  );

  app.post<{ Body: SearchBody }>("/threads/search", { schema: { body: { type: "object", properties: searchProperties } } }, async (request, reply) => {
    const body = request.body ?? { limit: 10, offset: 0 };
    refuseUnsupported("extract", body.extract, "name the fields you want with select, and read values with GET /threads/{thread_id}/state");
    const found = await threads.search({
      metadata: body.metadata ?? undefined,
      values: body.values ?? undefined,
      status: body.status ?? undefined,
      ids: body.ids?.map(checkThreadId) ?? undefined,
      limit: body.limit ?? 10,
      offset: body.offset ?? 0,
      sort_by: body.sort_by ?? "updated_at",
      sort_order: body.sort_order ?? "desc",
    }, accessFor(request));
    return send(reply, found.map((thread) => threads.recordJson(thread, body.select ?? undefined)));
  });

  app.post<{ Body: SearchBody }>("/threads/count", { schema: { body: { type: "object", properties: searchProperties } } }, async (request) =>
    threads.count({ metadata: request.body?.metadata ?? undefined, values: request.body?.values ?? undefined, status: request.body?.status ?? undefined }, accessFor(request)),
  );

  app.post<{ Body: { thread_ids: string[]; strategy?: "delete" } }>(
    "/threads/prune",
    { schema: { body: { type: "object", required: ["thread_ids"], properties: { thread_ids: { type: "array", items: { type: "string" } }, strategy: { enum: ["delete"] } } } } },
    async (request) => {
      const access = accessFor(request);
      let pruned = 0;
      // All ids checked before any is pruned: a bad id refuses the whole request. Another's thread is not pruned (as a missing one).
      for (const threadId of request.body.thread_ids.map(checkThreadId)) {
        if (!(await threads.get(threadId, access).then(() => true, () => false))) continue;
        await runs.cancelThread(threadId, access);
        pruned += await threads.delete(threadId, access).then(
          () => 1,
          () => 0,
        );
      }
      return { pruned_count: pruned };
    },
  );

  app.get<{ Params: ThreadParams; Querystring: { include?: string | string[] } }>("/threads/:thread_id", { schema: { querystring: { type: "object", properties: { include: selectQuery } } } }, async (request, reply) => {
    refuseUnsupported("include", listOf(request.query.include), noTtl);
    return send(reply, threads.recordJson(await threads.get(request.params.thread_id, accessFor(request))));
  });

  app.patch<{ Params: ThreadParams; Body: { metadata: JsonObject; ttl?: unknown } }>(
    "/threads/:thread_id",
    { schema: { body: { type: "object", properties: { metadata: { type: "object" }, ttl: {} } } } },
    async (request, reply) => {
      refuseUnsupported("ttl", request.body?.ttl, noTtl);
      const thread = await threads.patchMetadata(request.params.thread_id, request.body?.metadata ?? {}, accessFor(request));
      // Prefer: return=minimal (the SDK's returnMinimal): no body.
      if (/\breturn=minimal\b/.test(String(request.headers.prefer ?? ""))) return reply.code(204).send();
      return send(reply, threads.recordJson(thread));
    },
  );

  app.delete<{ Params: ThreadParams }>("/threads/:thread_id", async (request, reply) => {
    const access = accessFor(request);
    await threads.get(request.params.thread_id, access);
    await runs.cancelThread(request.params.thread_id, access);
    await threads.delete(request.params.thread_id, access);
    return reply.code(204).send();
  });

  app.post<{ Params: ThreadParams }>("/threads/:thread_id/copy", async (request, reply) => send(reply, threads.recordJson(await threads.copy(request.params.thread_id, accessFor(request)))));

  type StateQuery = { select?: string | string[]; subgraphs?: string };
  const stateQuery = { querystring: { type: "object", properties: { select: selectQuery, subgraphs: { type: "string" } } } };
  const stateAt = async (threadId: string, checkpoint: { checkpoint_id?: string; checkpoint_ns?: string } | undefined, options: { select?: string[]; subgraphs?: boolean }, access: Access, reply: FastifyReply) => {
    refuseUnsupported("subgraphs", options.subgraphs, noSubgraphs);
    return send(reply, await threads.state(threadId, checkpoint, access, options.select));
  };
  app.get<{ Params: ThreadParams; Querystring: StateQuery }>("/threads/:thread_id/state", { schema: stateQuery }, async (request, reply) =>
    stateAt(request.params.thread_id, undefined, { select: listOf(request.query.select), subgraphs: truthy(request.query.subgraphs) }, accessFor(request), reply),
  );

  app.get<{ Params: ThreadParams & { checkpoint_id: string }; Querystring: StateQuery }>("/threads/:thread_id/state/:checkpoint_id", { schema: stateQuery }, async (request, reply) =>
    stateAt(request.params.thread_id, { checkpoint_id: request.params.checkpoint_id }, { select: listOf(request.query.select), subgraphs: truthy(request.query.subgraphs) }, accessFor(request), reply),
  );

  app.post<{ Params: ThreadParams; Body: { checkpoint?: { checkpoint_id?: string; checkpoint_ns?: string }; select?: string[] | null; subgraphs?: boolean | null } }>(
    "/threads/:thread_id/state/checkpoint",
    { schema: { body: { type: "object", properties: { checkpoint: { type: ["object", "null"] }, select: { type: ["array", "null"], items: { type: "string" } }, subgraphs: { type: ["boolean", "null"] } } } } },
    async (request, reply) =>
      stateAt(request.params.thread_id, request.body?.checkpoint ?? undefined, { select: request.body?.select ?? undefined, subgraphs: request.body?.subgraphs ?? undefined }, accessFor(request), reply),
  );

  app.patch<{ Params: ThreadParams; Body: { metadata: JsonObject } }>(
    "/threads/:thread_id/state",
    { schema: { body: { type: "object", required: ["metadata"], properties: { metadata: { type: "object" } } } } },
    async (request, reply) => {
      await threads.patchStateMetadata(request.params.thread_id, request.body.metadata, accessFor(request));
      return reply.code(204).send();
    },
  );

  app.post<{ Params: ThreadParams; Body: { values?: unknown; as_node?: string; checkpoint_id?: string; checkpoint?: { checkpoint_id?: string } } }>(
    "/threads/:thread_id/state",
    { schema: { body: { type: "object", properties: { values: {}, as_node: { type: ["string", "null"] }, checkpoint_id: { type: ["string", "null"] }, checkpoint: { type: ["object", "null"] } } } } },
    async (request) =>
      threads.updateState(request.params.thread_id, request.body?.values ?? null, {
        asNode: request.body?.as_node ?? undefined,
        checkpointId: request.body?.checkpoint_id ?? request.body?.checkpoint?.checkpoint_id ?? undefined,
      }, accessFor(request)),
  );

  // A page of at most `limit` states and about agent.threads.history_max_mb (at least one state); X-Pagination-Next is the `before` of the next page.
  const history = async (threadId: string, body: HistoryBody, access: Access, reply: FastifyReply) => {
    const before = typeof body.before === "string" ? body.before : body.before?.configurable?.checkpoint_id;
    const page = await threads.history(threadId, { limit: body.limit ?? 10, before, metadata: body.metadata ?? undefined, checkpoint: body.checkpoint ?? undefined, select: listOf(body.select ?? undefined) }, access);
    if (page.next) reply.header("x-pagination-next", page.next);
    return send(reply, page.states);
  };
  app.post<{ Params: ThreadParams; Body: HistoryBody }>(
    "/threads/:thread_id/history",
    { schema: { body: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 1000 }, before: {}, metadata: { type: ["object", "null"] }, checkpoint: { type: ["object", "null"] }, select: { type: ["array", "null"], items: { type: "string" } } } } } },
    async (request, reply) => history(request.params.thread_id, request.body ?? {}, accessFor(request), reply),
  );
  app.get<{ Params: ThreadParams; Querystring: { limit?: number; before?: string; select?: string | string[] } }>(
    "/threads/:thread_id/history",
    { schema: { querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 1000 }, before: { type: "string" }, select: selectQuery } } } },
    async (request, reply) => history(request.params.thread_id, request.query, accessFor(request), reply),
  );

  // The SDK's threads.stream (its v2 protocol: commands and an event stream per thread) is not served: 501 with the way that is.
  const noProtocol = async () => {
    throw new ThinktankError("NOT_IMPLEMENTED", "the thread streaming protocol (threads.stream: /threads/{thread_id}/commands, /threads/{thread_id}/stream/events) is not served here: stream a run with POST /threads/{thread_id}/runs/stream (client.runs.stream)");
  };
  for (const url of ["/threads/:thread_id/commands", "/threads/:thread_id/stream/events"]) app.route({ method: ["GET", "POST"], url, handler: noProtocol });
}
