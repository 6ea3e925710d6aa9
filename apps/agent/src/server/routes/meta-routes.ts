import type { FastifyInstance } from "fastify";
import { leadAgentGraphId } from "../../graph/build-lead-agent-graph.js";

/** GET /healthz (no key needed), GET /ok, GET /info (agent-chat-ui checks it on connect). */
export function registerMetaRoutes(app: FastifyInstance): void {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/ok", async () => ({ ok: true }));
  app.get("/info", async () => ({
    name: "thinktank-agent",
    graphs: [leadAgentGraphId],
    flags: { assistants: true, crons: false, langsmith: false, store: false },
  }));
}
