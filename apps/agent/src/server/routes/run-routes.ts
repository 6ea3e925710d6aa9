import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ThinktankError } from "@thinktank/core";
import { runRequestSchema, type RunRequest, type RunStatus } from "@thinktank/runs";
import type { AgentRouteContext } from "../agent-route-context.js";
import { accessFor } from "../caller-hook.js";
import { writeEmptyStream, writeRunEvents } from "../write-sse.js";

interface ThreadParams {
  thread_id: string;
}
interface RunParams extends ThreadParams {
  run_id: string;
}

const runStatus = { enum: ["pending", "running", "error", "success", "timeout", "interrupted"] };
/** How many runs one POST /runs/batch may create. */
const maxBatchRuns = 100;
const cancelQuery = { type: "object", properties: { wait: { type: "string" }, action: { enum: ["interrupt", "rollback"] } } };
const runRequestFields = new Set([...Object.keys(runRequestSchema.properties), "webhook", "feedback_keys", "langsmith_tracer"]);

/** POST /runs/batch's body with each payload's SDK names (`onCompletion`, `_langsmithTracer`) as the API's (`on_completion`); a key that is neither: UNSUPPORTED_FIELD. */
function batchPayloads(body: unknown): unknown {
  if (!Array.isArray(body)) return body;
  return body.map((payload: unknown, index) => {
    if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return payload;
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(payload)) {
      const name = key.replace(/^_/, "").replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
      if (!runRequestFields.has(name)) throw new ThinktankError("UNSUPPORTED_FIELD", `[${index}].${key} is not a field of a run request`, { details: { field: `[${index}].${key}` } });
      // The API's own name wins over the SDK's spelling of it (the SDK sends assistant_id and assistantId).
      if (name === key || !(name in result)) result[name] = value;
    }
    return result;
  });
}

const joinedModes = "a joined stream carries the stream modes and namespaces its run was created with";
/** Query parameters the SDK may send that this server does not implement: given a value, the request is refused (422 UNSUPPORTED_FIELD), not served without them. */
function refuseQuery(reasons: Record<string, string>) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    for (const [field, reason] of Object.entries(reasons)) {
      const value = query[field];
      if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) continue;
      throw new ThinktankError("UNSUPPORTED_FIELD", `${field} is not supported here: ${reason}`, { details: { field } });
    }
  };
}
const streamQuery = { preHandler: refuseQuery({ namespace: "a run streams every namespace it was asked for (stream_subgraphs); filter the events by name" }) };
const joinQuery = { preHandler: refuseQuery({ stream_mode: joinedModes, namespace: joinedModes, checkpoint_id: "a joined stream starts at its run's first event (or after Last-Event-ID)" }) };

/** A boolean query flag as the LangGraph API sends it. */
export const truthy = (value: string | undefined | null): boolean => value === "1" || value === "true";

/**
 * Runs: create (background), stream (SSE), wait; list, get, delete, cancel, join, join-stream;
 * and the stateless forms under /runs that use a temporary thread. Each as the caller (accessFor):
 * a run is reached through its thread, another's answered as missing; a run executes for its creator.
 */
export function registerRunRoutes(app: FastifyInstance, context: AgentRouteContext): void {
  const { runs } = context;
  const body = { body: runRequestSchema };
  const runPath = (threadId: string, runId: string) => `/threads/${threadId}/runs/${runId}`;

  const stream = async (threadId: string | undefined, request: RunRequest, reply: FastifyReply) => {
    const access = accessFor(reply.request);
    const { run, events } = await runs.create(threadId, request, { requestId: reply.request.id, access });
    const headers = { "content-location": runPath(run.thread_id, run.run_id), ...(threadId ? { location: `${runPath(run.thread_id, run.run_id)}/stream` } : {}) };
    await writeRunEvents(reply, events, {
      headers,
      onDisconnect: () => {
        if (request.on_disconnect === "cancel") void runs.cancel(run.thread_id, run.run_id, "interrupt", false, access).catch(() => undefined);
      },
    });
  };

  const wait = async (threadId: string | undefined, request: RunRequest, reply: FastifyReply) => {
    const access = accessFor(reply.request);
    const { run } = await runs.create(threadId, request, { requestId: reply.request.id, access });
    reply.header("content-location", runPath(run.thread_id, run.run_id));
    return runs.join(run.thread_id, run.run_id, access);
  };

  app.post<{ Params: ThreadParams; Body: RunRequest }>("/threads/:thread_id/runs", { schema: body }, async (request, reply) => {
    const { run } = await runs.create(request.params.thread_id, request.body, { requestId: request.id, access: accessFor(request) });
    reply.header("content-location", runPath(run.thread_id, run.run_id));
    return run;
  });
  app.post<{ Params: ThreadParams; Body: RunRequest }>("/threads/:thread_id/runs/stream", { schema: body, ...streamQuery }, (request, reply) => stream(request.params.thread_id, request.body, reply));
  app.post<{ Params: ThreadParams; Body: RunRequest }>("/threads/:thread_id/runs/wait", { schema: body }, (request, reply) => wait(request.params.thread_id, request.body, reply));

  app.post<{ Body: RunRequest }>("/runs", { schema: body }, async (request, reply) => {
    const { run } = await runs.create(undefined, request.body, { requestId: request.id, access: accessFor(request) });
    reply.header("content-location", runPath(run.thread_id, run.run_id));
    return run;
  });
  app.post<{ Body: RunRequest }>("/runs/stream", { schema: body, ...streamQuery }, (request, reply) => stream(undefined, request.body, reply));
  app.post<{ Body: RunRequest }>("/runs/wait", { schema: body }, (request, reply) => wait(undefined, request.body, reply));

  // Not in the LangGraph API: the console's activity list. Runs across the caller's threads (an
  // administrator's `X-Thinktank-Scope: all`: everyone's), newest first, with each ended run's figures.
  app.get<{ Querystring: { limit?: number } }>(
    "/runs/recent",
    { schema: { querystring: { type: "object", additionalProperties: false, properties: { limit: { type: "integer", minimum: 1, maximum: 200 } } } } },
    async (request) => {
      const recent = await runs.recent({ limit: request.query.limit ?? 50 }, accessFor(request));
      return {
        runs: recent.map(({ run_id, thread_id, assistant_id, status, created_at, updated_at, owner_id, summary }) => ({ run_id, thread_id, assistant_id, status, created_at, updated_at, owner_id, ...summary })),
      };
    },
  );

  app.get<{ Params: ThreadParams; Querystring: { limit?: number; offset?: number; status?: RunStatus; select?: string | string[] } }>(
    "/threads/:thread_id/runs",
    { schema: { querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 1000 }, offset: { type: "integer", minimum: 0 }, status: runStatus, select: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } } } } },
    async (request) =>
      runs.listSelected(request.params.thread_id, { limit: request.query.limit ?? 10, offset: request.query.offset ?? 0, status: request.query.status, select: request.query.select === undefined ? undefined : [request.query.select].flat() }, accessFor(request)),
  );

  app.get<{ Params: RunParams }>("/threads/:thread_id/runs/:run_id", async (request) => runs.get(request.params.thread_id, request.params.run_id, accessFor(request)));

  app.delete<{ Params: RunParams }>("/threads/:thread_id/runs/:run_id", async (request, reply) => {
    await runs.delete(request.params.thread_id, request.params.run_id, accessFor(request));
    return reply.code(204).send();
  });

  app.post<{ Params: RunParams; Querystring: { wait?: string; action?: "interrupt" | "rollback" } }>(
    "/threads/:thread_id/runs/:run_id/cancel",
    { schema: { querystring: cancelQuery }, preHandler: refuseQuery({ reason: "a cancel records no reason here" }) },
    async (request, reply) => {
      const wait = truthy(request.query.wait);
      await runs.cancel(request.params.thread_id, request.params.run_id, request.query.action ?? "interrupt", wait, accessFor(request));
      return reply.code(wait ? 204 : 202).send();
    },
  );

  // Stateless runs in one request, each on a temporary thread: all are checked before any is created.
  // The SDK's createBatch sends its payloads' own camelCase names (onCompletion, streamMode): read as the API's; any other key is refused, not ignored.
  app.post<{ Body: RunRequest[] }>("/runs/batch", { schema: { body: { type: "array", minItems: 1, maxItems: maxBatchRuns, items: runRequestSchema } }, preValidation: async (request) => void (request.body = batchPayloads(request.body) as RunRequest[]) }, async (request) => {
    const access = accessFor(request);
    for (const [index, each] of request.body.entries()) runs.check(each, `[${index}]`);
    const created = [];
    for (const each of request.body) created.push((await runs.create(undefined, each, { requestId: request.id, access })).run);
    return created;
  });

  // Runs by id (on a thread, or by id alone), a thread's in-flight runs, or with `status` alone every run of that status the caller reaches.
  app.post<{ Body: { thread_id?: string; run_ids?: string[]; status?: "pending" | "running" | "all" }; Querystring: { action?: "interrupt" | "rollback" } }>(
    "/runs/cancel",
    { schema: { querystring: cancelQuery, body: { type: "object", properties: { thread_id: { type: ["string", "null"] }, run_ids: { type: ["array", "null"], items: { type: "string" } }, status: { enum: ["pending", "running", "all", null] } } } } },
    async (request, reply) => {
      const { thread_id: threadId, run_ids: runIds, status } = request.body ?? {};
      if (!threadId && !runIds && !status) throw new ThinktankError("VALIDATION_FAILED", "say which runs to cancel: thread_id, run_ids or status (pending, running or all)", { details: { field: "status" } });
      await runs.cancelMany({ threadId: threadId ?? undefined, runIds: runIds ?? undefined, status: status ?? undefined }, request.query.action ?? "interrupt", accessFor(request));
      return reply.code(204).send();
    },
  );

  app.get<{ Params: RunParams }>("/threads/:thread_id/runs/:run_id/join", async (request) => runs.join(request.params.thread_id, request.params.run_id, accessFor(request)));

  /** The run's events (the caller reached the run before this). */
  const joinStream = async (threadId: string, runId: string, lastEventId: string | undefined, cancelOnDisconnect: boolean, reply: FastifyReply) => {
    const log = await runs.findEvents(runId);
    if (!log) {
      throw new ThinktankError(
        "RUN_EVENTS_EXPIRED",
        `the events of run ${runId} are no longer kept (a finished run's events are dropped after agent.run_events.retention_seconds, or earlier past max_runs / max_mb); its result: GET /threads/${threadId}/runs/${runId}/join`,
        { details: { run_id: runId, thread_id: threadId } },
      );
    }
    await writeRunEvents(reply, log, {
      afterId: lastEventId,
      onDisconnect: () => {
        if (cancelOnDisconnect) void runs.cancel(threadId, runId, "interrupt", false, accessFor(reply.request)).catch(() => undefined);
      },
    });
  };

  app.get<{ Params: RunParams; Querystring: { cancel_on_disconnect?: string } }>("/threads/:thread_id/runs/:run_id/stream", joinQuery, async (request, reply) => {
    await runs.get(request.params.thread_id, request.params.run_id, accessFor(request));
    const lastEventId = request.headers["last-event-id"];
    await joinStream(request.params.thread_id, request.params.run_id, typeof lastEventId === "string" ? lastEventId : undefined, truthy(request.query.cancel_on_disconnect), reply);
  });

  app.get<{ Params: { run_id: string }; Querystring: { cancel_on_disconnect?: string } }>("/runs/:run_id/stream", joinQuery, async (request, reply) => {
    const run = await runs.find(request.params.run_id, accessFor(request));
    const lastEventId = request.headers["last-event-id"];
    await joinStream(run.thread_id, run.run_id, typeof lastEventId === "string" ? lastEventId : undefined, truthy(request.query.cancel_on_disconnect), reply);
  });

  app.get<{ Params: ThreadParams }>("/threads/:thread_id/stream", joinQuery, async (request, reply) => {
    const [current] = await runs.inFlightRuns(request.params.thread_id, accessFor(request));
    if (!current) return writeEmptyStream(reply);
    const lastEventId = request.headers["last-event-id"];
    await joinStream(request.params.thread_id, current, typeof lastEventId === "string" ? lastEventId : undefined, false, reply);
  });

}
