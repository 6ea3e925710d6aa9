import type { FastifyInstance } from "fastify";
import type { SandboxBackendInfo } from "@thinktank/sandbox";
import { leadAgentGraphId } from "../../graph/build-lead-agent-graph.js";

export interface MetaRoutesOptions {
  /** The sandbox backend in use (auto resolved) and what it isolates. */
  readonly sandbox: () => Promise<SandboxBackendInfo>;
}

/** GET /healthz (no key needed; says which sandbox backend runs code), GET /ok, GET /info (agent-chat-ui checks it on connect). */
export function registerMetaRoutes(app: FastifyInstance, options: MetaRoutesOptions): void {
  app.get("/healthz", async () => {
    const { backend, isolated, isolation, fallback, memory } = await options.sandbox();
    return { status: "ok", sandbox: { backend, isolated, isolation, ...(fallback ? { fallback } : {}), memory } };
  });
  app.get("/ok", async () => ({ ok: true }));
  app.get("/info", async () => ({
    name: "thinktank-agent",
    graphs: [leadAgentGraphId],
    flags: { assistants: true, crons: false, langsmith: false, store: true },
  }));
}
