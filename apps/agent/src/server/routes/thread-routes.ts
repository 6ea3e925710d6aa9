import type { FastifyInstance, FastifyReply } from "fastify";
import { checkThreadId, type Access, type JsonObject, type ThreadJson, type ThreadSearch, type ThreadStatus } from "@thinktank/runs";
import type { AgentRouteContext } from "../agent-route-context.js";
import { accessFor } from "../caller-hook.js";

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
};

interface SearchBody {
  metadata?: JsonObject | null;
  values?: JsonObject | null;
  status?: ThreadStatus | null;
  ids?: string[] | null;
  limit: number;
  offset: number;
  sort_by?: ThreadSearch["sort_by"] | null;
  sort_order?: "asc" | "desc" | null;
}

interface HistoryBody {
  limit?: number;
  before?: string | { configurable?: { checkpoint_id?: string } };
  metadata?: JsonObject;
  checkpoint?: JsonObject;
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

  app.post<{ Body: { thread_id?: string; metadata?: JsonObject; if_exists?: "raise" | "do_nothing" } }>(
    "/threads",
    { schema: { body: { type: "object", properties: { thread_id: { type: "string" }, metadata: { type: "object" }, if_exists: { enum: ["raise", "do_nothing"] } } } } },
    async (request, reply) =>
      send(reply, threads.recordJson(await threads.create({ threadId: request.body?.thread_id, metadata: request.body?.metadata, ifExists: request.body?.if_exists }, accessFor(request)))),
  );

  app.post<{ Body: SearchBody }>("/threads/search", { schema: { body: { type: "object", properties: searchProperties } } }, async (request, reply) => {
    const body = request.body ?? { limit: 10, offset: 0 };
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
    return send(reply, found.map((thread) => threads.recordJson(thread)));
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

  app.get<{ Params: ThreadParams }>("/threads/:thread_id", async (request, reply) => send(reply, threads.recordJson(await threads.get(request.params.thread_id, accessFor(request)))));

  app.patch<{ Params: ThreadParams; Body: { metadata: JsonObject } }>(
    "/threads/:thread_id",
    { schema: { body: { type: "object", properties: { metadata: { type: "object" } } } } },
    async (request, reply) => send(reply, threads.recordJson(await threads.patchMetadata(request.params.thread_id, request.body?.metadata ?? {}, accessFor(request)))),
  );

  app.delete<{ Params: ThreadParams }>("/threads/:thread_id", async (request, reply) => {
    const access = accessFor(request);
    await threads.get(request.params.thread_id, access);
    await runs.cancelThread(request.params.thread_id, access);
    await threads.delete(request.params.thread_id, access);
    return reply.code(204).send();
  });

  app.post<{ Params: ThreadParams }>("/threads/:thread_id/copy", async (request, reply) => send(reply, threads.recordJson(await threads.copy(request.params.thread_id, accessFor(request)))));

  app.get<{ Params: ThreadParams }>("/threads/:thread_id/state", async (request, reply) => send(reply, await threads.state(request.params.thread_id, undefined, accessFor(request))));

  app.get<{ Params: ThreadParams & { checkpoint_id: string } }>("/threads/:thread_id/state/:checkpoint_id", async (request, reply) =>
    send(reply, await threads.state(request.params.thread_id, { checkpoint_id: request.params.checkpoint_id }, accessFor(request))),
  );

  app.post<{ Params: ThreadParams; Body: { checkpoint?: { checkpoint_id?: string; checkpoint_ns?: string } } }>(
    "/threads/:thread_id/state/checkpoint",
    { schema: { body: { type: "object", properties: { checkpoint: { type: ["object", "null"] } } } } },
    async (request, reply) => send(reply, await threads.state(request.params.thread_id, request.body?.checkpoint ?? undefined, accessFor(request))),
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
    const page = await threads.history(threadId, { limit: body.limit ?? 10, before, metadata: body.metadata ?? undefined, checkpoint: body.checkpoint ?? undefined }, access);
    if (page.next) reply.header("x-pagination-next", page.next);
    return send(reply, page.states);
  };
  app.post<{ Params: ThreadParams; Body: HistoryBody }>(
    "/threads/:thread_id/history",
    { schema: { body: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 1000 }, before: {}, metadata: { type: ["object", "null"] }, checkpoint: { type: ["object", "null"] } } } } },
    async (request, reply) => history(request.params.thread_id, request.body ?? {}, accessFor(request), reply),
  );
  app.get<{ Params: ThreadParams; Querystring: { limit?: number; before?: string } }>(
    "/threads/:thread_id/history",
    { schema: { querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 1000 }, before: { type: "string" } } } } },
    async (request, reply) => history(request.params.thread_id, request.query, accessFor(request), reply),
  );
}
