import type { FastifyInstance } from "fastify";
import { ThinktankError } from "@thinktank/core";
import { assistantSettingsJsonSchema, type Assistant, type JsonObject } from "@thinktank/runs";
import { leadAgentGraphId } from "../../graph/build-lead-agent-graph.js";
import type { AgentRouteContext } from "../agent-route-context.js";
import { accessFor } from "../caller-hook.js";

const messageSchema = { type: "object", properties: { type: { type: "string" }, content: {}, id: { type: "string" } }, required: ["type"] };
const stateSchema = {
  title: "LeadAgentState",
  type: "object",
  properties: {
    messages: { type: "array", items: messageSchema, description: "The conversation (input: messages to append)." },
    activeSkill: { type: ["string", "null"], description: "The skill whose specialist context is active, or null." },
    artifacts: {
      type: "array",
      items: { type: "object", properties: { path: { type: "string" }, name: { type: "string" }, size: { type: "integer" }, mime_type: { type: "string" }, url: { type: "string" } }, required: ["path", "name", "size", "mime_type", "url"] },
      description: "The files the model presented with present_files, one per path, newest last; url is the download route relative to this server.",
    },
  },
};

interface IdParams {
  assistant_id: string;
}

const sortFields = ["assistant_id", "graph_id", "name", "created_at", "updated_at"] as const;
const selectFields = ["assistant_id", "graph_id", "name", "description", "config", "context", "created_at", "updated_at", "metadata", "version"] as const;
const createKeys = new Set(["assistant_id", "graph_id", "config", "context", "metadata", "if_exists", "name", "description"]);
const updateKeys = new Set(["graph_id", "config", "context", "metadata", "name", "description"]);

interface SearchBody {
  graph_id?: string;
  name?: string;
  metadata?: JsonObject;
  limit?: number;
  offset?: number;
  sort_by?: (typeof sortFields)[number];
  sort_order?: "asc" | "desc";
  select?: (typeof selectFields)[number][];
}

const filterProperties = { graph_id: { type: "string" }, name: { type: "string" }, metadata: { type: "object" } };
const searchBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...filterProperties,
    limit: { type: "integer", minimum: 1, maximum: 1000 },
    offset: { type: "integer", minimum: 0 },
    sort_by: { enum: sortFields },
    sort_order: { enum: ["asc", "desc"] },
    select: { type: "array", items: { enum: selectFields }, minItems: 1 },
  },
};
const countBody = { type: "object", additionalProperties: false, properties: filterProperties };
const versionsBody = { type: "object", additionalProperties: false, properties: { metadata: { type: "object" }, limit: { type: "integer", minimum: 1, maximum: 1000 }, offset: { type: "integer", minimum: 0 } } };
const latestBody = { type: "object", additionalProperties: false, required: ["version"], properties: { version: { type: "integer", minimum: 1 } } };
const deleteQuery = { type: "object", additionalProperties: false, properties: { delete_threads: { type: "boolean" } } };

/**
 * The assistants API as @langchain/langgraph-sdk calls it (packages/runs/README.md, "Assistants"):
 * create, get, update (a new version), versions, latest, delete, search, count, and the graph,
 * subgraphs and schemas of an assistant's graph. Each as the caller (accessFor): their own
 * assistants and lead_agent's built-in one; another's answers ASSISTANT_NOT_FOUND.
 */
export function registerAssistantRoutes(app: FastifyInstance, context: AgentRouteContext): void {
  const { assistants } = context;

  app.post<{ Body: Record<string, unknown> }>("/assistants", { schema: { body: { type: "object" } } }, async (request) => {
    const body = envelope(request.body, createKeys);
    return assistants.create(body, accessFor(request));
  });

  app.patch<{ Params: IdParams; Body: Record<string, unknown> }>("/assistants/:assistant_id", { schema: { body: { type: "object" } } }, async (request) =>
    assistants.update(request.params.assistant_id, envelope(request.body, updateKeys), accessFor(request)),
  );

  app.delete<{ Params: IdParams; Querystring: { delete_threads?: boolean } }>("/assistants/:assistant_id", { schema: { querystring: deleteQuery } }, async (request, reply) => {
    const access = accessFor(request);
    const assistant = await assistants.get(request.params.assistant_id, access);
    await assistants.delete(request.params.assistant_id, access);
    // delete_threads: the caller's threads whose last run used it (their metadata.assistant_id).
    if (request.query.delete_threads) {
      for (;;) {
        const page = await context.threads.search({ metadata: { assistant_id: assistant.assistant_id }, limit: 100, offset: 0, sort_by: "created_at", sort_order: "asc" }, access);
        if (page.length === 0) break;
        for (const thread of page) {
          await context.runs.cancelThread(thread.thread_id, access);
          await context.threads.delete(thread.thread_id, access);
        }
      }
    }
    return reply.code(204).send();
  });

  app.post<{ Body: SearchBody | undefined }>("/assistants/search", { schema: { body: searchBody } }, async (request, reply) => {
    const body = request.body ?? {};
    const limit = body.limit ?? 10;
    const offset = body.offset ?? 0;
    const found = await assistants.search(
      { graph_id: body.graph_id, name: body.name, metadata: body.metadata, limit, offset, sort_by: body.sort_by ?? "created_at", sort_order: body.sort_order ?? "desc" },
      accessFor(request),
    );
    if (found.next !== undefined) reply.header("x-pagination-next", String(found.next));
    return body.select ? found.assistants.map((assistant) => pick(assistant, body.select as readonly string[])) : found.assistants;
  });

  app.post<{ Body: Pick<SearchBody, "graph_id" | "name" | "metadata"> | undefined }>("/assistants/count", { schema: { body: countBody } }, async (request) => {
    const body = request.body ?? {};
    return assistants.count({ graph_id: body.graph_id, name: body.name, metadata: body.metadata }, accessFor(request));
  });

  app.get<{ Params: IdParams }>("/assistants/:assistant_id", async (request) => assistants.get(request.params.assistant_id, accessFor(request)));

  app.post<{ Params: IdParams; Body: { metadata?: JsonObject; limit?: number; offset?: number } | undefined }>("/assistants/:assistant_id/versions", { schema: { body: versionsBody } }, async (request) =>
    assistants.versions(request.params.assistant_id, { metadata: request.body?.metadata, limit: request.body?.limit ?? 10, offset: request.body?.offset ?? 0 }, accessFor(request)),
  );

  app.post<{ Params: IdParams; Body: { version: number } }>("/assistants/:assistant_id/latest", { schema: { body: latestBody } }, async (request) =>
    assistants.setLatest(request.params.assistant_id, request.body.version, accessFor(request)),
  );

  // Every assistant is graph lead_agent's: its graph, subgraphs and schemas are that graph's.
  app.get<{ Params: IdParams }>("/assistants/:assistant_id/graph", async (request) => {
    await assistants.get(request.params.assistant_id, accessFor(request));
    return context.threads.drawableGraph();
  });
  app.get<{ Params: IdParams }>("/assistants/:assistant_id/subgraphs", async (request) => {
    await assistants.get(request.params.assistant_id, accessFor(request));
    return {};
  });
  app.get<{ Params: IdParams & { namespace: string } }>("/assistants/:assistant_id/subgraphs/:namespace", async (request) => {
    await assistants.get(request.params.assistant_id, accessFor(request));
    return {};
  });
  app.get<{ Params: IdParams }>("/assistants/:assistant_id/schemas", async (request) => {
    await assistants.get(request.params.assistant_id, accessFor(request));
    return {
      graph_id: leadAgentGraphId,
      input_schema: stateSchema,
      output_schema: stateSchema,
      state_schema: stateSchema,
      config_schema: assistantSettingsJsonSchema,
      context_schema: assistantSettingsJsonSchema,
    };
  });
}

/** A create or update body: an object with only the keys the route takes (422 INVALID_ASSISTANT naming another). */
function envelope(body: Record<string, unknown> | undefined, keys: ReadonlySet<string>): Record<string, never> {
  const value = body ?? {};
  for (const key of Object.keys(value)) {
    if (!keys.has(key)) throw new ThinktankError("INVALID_ASSISTANT", `${key}: not a field of this request (it takes ${[...keys].join(", ")})`, { details: { field: key } });
  }
  if (value.if_exists !== undefined && value.if_exists !== "raise" && value.if_exists !== "do_nothing") {
    throw new ThinktankError("INVALID_ASSISTANT", 'if_exists: must be "raise" or "do_nothing"', { details: { field: "if_exists" } });
  }
  for (const key of ["assistant_id", "graph_id"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") throw new ThinktankError("INVALID_ASSISTANT", `${key}: must be a string`, { details: { field: key } });
  }
  return value as Record<string, never>;
}

function pick(assistant: Assistant, fields: readonly string[]): Partial<Assistant> {
  const source = assistant as unknown as Record<string, unknown>;
  return Object.fromEntries(fields.filter((field) => field in source).map((field) => [field, source[field]])) as Partial<Assistant>;
}
