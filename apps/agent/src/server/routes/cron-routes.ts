import type { FastifyInstance } from "fastify";
import { ThinktankError } from "@thinktank/core";
import { cronBodySchema, runRequestSchema, type CronBody, type CronSearch, type CronService, type JsonObject } from "@thinktank/runs";
import { accessFor } from "../caller-hook.js";

interface CronParams {
  cron_id: string;
}
interface SearchBody {
  assistant_id?: string;
  thread_id?: string;
  enabled?: boolean;
  limit?: number;
  offset?: number;
  sort_by?: CronSearch["sort_by"];
  sort_order?: CronSearch["sort_order"];
  select?: string[];
  metadata?: JsonObject;
}

const runProperties = runRequestSchema.properties as Record<string, unknown>;
const createSchema = { body: cronBodySchema(runProperties, ["assistant_id", "schedule"]) };
const updateSchema = { body: cronBodySchema(runProperties, []) };
const filter = { assistant_id: { type: "string" }, thread_id: { type: "string" }, metadata: { type: ["object", "null"] } };
const searchSchema = {
  body: {
    type: ["object", "null"],
    properties: {
      ...filter,
      enabled: { type: ["boolean", "null"] },
      limit: { type: "integer", minimum: 1, maximum: 1000 },
      offset: { type: "integer", minimum: 0 },
      sort_by: { enum: ["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date", null] },
      sort_order: { enum: ["asc", "desc", null] },
      select: { type: ["array", "null"], items: { type: "string" } },
    },
  },
};
const countSchema = { body: { type: ["object", "null"], properties: filter } };

/**
 * Crons as `@langchain/langgraph-sdk`'s `client.crons` calls them (packages/runs, "Crons"): create
 * on a thread or with a new thread each fire, search, count, update, delete; each as the caller
 * (accessFor), another owner's cron answered CRON_NOT_FOUND. Without `crons` (crons.enabled:
 * false) every route answers 501 NOT_IMPLEMENTED.
 */
export function registerCronRoutes(app: FastifyInstance, crons: CronService | undefined): void {
  if (!crons) {
    const off = (): never => {
      throw new ThinktankError("NOT_IMPLEMENTED", "crons are switched off on this agent server (crons.enabled: false)");
    };
    for (const url of ["/threads/:thread_id/runs/crons", "/runs/crons", "/runs/crons/*"]) app.route({ method: ["GET", "POST", "PATCH", "DELETE"], url, handler: off });
    return;
  }
  app.post<{ Params: { thread_id: string }; Body: CronBody }>("/threads/:thread_id/runs/crons", { schema: createSchema }, async (request) =>
    crons.create(request.params.thread_id, request.body, accessFor(request)),
  );
  app.post<{ Body: CronBody }>("/runs/crons", { schema: createSchema }, async (request) => crons.create(undefined, request.body, accessFor(request)));
  app.post<{ Body: SearchBody | null }>("/runs/crons/search", { schema: searchSchema }, async (request) => {
    const body = request.body ?? {};
    return crons.search(
      {
        assistant_id: body.assistant_id,
        thread_id: body.thread_id,
        enabled: body.enabled ?? undefined,
        metadata: body.metadata ?? undefined,
        limit: body.limit ?? 10,
        offset: body.offset ?? 0,
        sort_by: body.sort_by ?? "created_at",
        sort_order: body.sort_order ?? "desc",
        select: body.select ?? undefined,
      },
      accessFor(request),
    );
  });
  app.post<{ Body: SearchBody | null }>("/runs/crons/count", { schema: countSchema }, async (request) => {
    const body = request.body ?? {};
    return crons.count({ assistant_id: body.assistant_id, thread_id: body.thread_id, metadata: body.metadata ?? undefined }, accessFor(request));
  });
  app.patch<{ Params: CronParams; Body: CronBody }>("/runs/crons/:cron_id", { schema: updateSchema }, async (request) => crons.update(request.params.cron_id, request.body ?? {}, accessFor(request)));
  app.delete<{ Params: CronParams }>("/runs/crons/:cron_id", async (request, reply) => {
    await crons.delete(request.params.cron_id, accessFor(request));
    return reply.code(204).send();
  });
}
