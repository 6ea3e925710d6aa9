import type { FastifyInstance } from "fastify";
import { ThinktankError } from "@thinktank/core";
import { containsAll } from "@thinktank/runs";
import { leadAssistant, resolveAssistantId } from "../../assistants/lead-assistant.js";
import { leadAgentGraphId } from "../../graph/build-lead-agent-graph.js";
import type { AgentRouteContext } from "../agent-route-context.js";

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

/** The one fixed assistant of graph lead_agent: search, get, graph, schemas. Creating or changing assistants is refused. */
export function registerAssistantRoutes(app: FastifyInstance, context: AgentRouteContext): void {
  const assistant = () => leadAssistant(context.startedAt);
  const matches = (body: { graph_id?: string; metadata?: Record<string, unknown>; name?: string }) =>
    (body.graph_id === undefined || body.graph_id === leadAgentGraphId) && (body.name === undefined || body.name === leadAgentGraphId) && containsAll(assistant().metadata, body.metadata);

  const searchBody = { type: "object", properties: { graph_id: { type: "string" }, name: { type: "string" }, metadata: { type: "object" }, limit: { type: "integer", minimum: 1 }, offset: { type: "integer", minimum: 0 } } };
  app.post<{ Body: { graph_id?: string; name?: string; metadata?: Record<string, unknown>; offset?: number } }>("/assistants/search", { schema: { body: searchBody } }, async (request) =>
    matches(request.body ?? {}) && (request.body?.offset ?? 0) === 0 ? [assistant()] : [],
  );
  app.post<{ Body: { graph_id?: string; name?: string; metadata?: Record<string, unknown> } }>("/assistants/count", { schema: { body: searchBody } }, async (request) =>
    matches(request.body ?? {}) ? 1 : 0,
  );
  app.get<{ Params: IdParams }>("/assistants/:assistant_id", async (request) => {
    resolveAssistantId(request.params.assistant_id);
    return assistant();
  });
  app.post<{ Params: IdParams }>("/assistants/:assistant_id/versions", async (request) => {
    resolveAssistantId(request.params.assistant_id);
    return [assistant()];
  });
  app.post<{ Params: IdParams }>("/assistants/:assistant_id/latest", async (request) => {
    resolveAssistantId(request.params.assistant_id);
    return assistant();
  });
  app.get<{ Params: IdParams }>("/assistants/:assistant_id/graph", async (request) => {
    resolveAssistantId(request.params.assistant_id);
    return context.threads.drawableGraph();
  });
  app.get<{ Params: IdParams }>("/assistants/:assistant_id/subgraphs", async (request) => {
    resolveAssistantId(request.params.assistant_id);
    return {};
  });
  app.get<{ Params: IdParams }>("/assistants/:assistant_id/schemas", async (request) => {
    resolveAssistantId(request.params.assistant_id);
    return {
      graph_id: leadAgentGraphId,
      input_schema: stateSchema,
      output_schema: stateSchema,
      state_schema: stateSchema,
      config_schema: { type: "object", properties: {} },
      context_schema: { type: "object", properties: {} },
    };
  });
  const refuse = async () => {
    throw new ThinktankError("FORBIDDEN", `assistants are fixed on this server: graph ${leadAgentGraphId} has one assistant; configure the agent in config.yaml`);
  };
  app.post("/assistants", refuse);
  app.patch("/assistants/:assistant_id", refuse);
  app.delete("/assistants/:assistant_id", refuse);
}
