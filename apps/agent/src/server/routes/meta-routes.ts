import type { FastifyInstance } from "fastify";
import type { HostIsolationInfo } from "@thinktank/core";
import type { SandboxBackendInfo } from "@thinktank/sandbox";
import { ThinktankError } from "@thinktank/core";
import { leadAgentGraphId } from "../../graph/build-lead-agent-graph.js";

export interface MetaRoutesOptions {
  /** The sandbox backend in use (auto resolved) and what it isolates. */
  readonly sandbox: () => Promise<SandboxBackendInfo>;
  /** How programs started on the host are confined (its reason names no host path). */
  readonly hostIsolation: () => HostIsolationInfo;
  /** Whether crons are served (crons.enabled): GET /info's `flags.crons`. @default false */
  readonly crons?: boolean;
}

/** What /healthz says when `auto` did not pick bubblewrap: the reason itself names host paths and the PATH, so it stays in the start-up log. */
export const healthzFallback = "bubblewrap is not usable here, so code runs on the deno backend; the agent's start-up log says why and how to fix it";

/**
 * GET /healthz (no key needed; says which sandbox backend runs code and how host programs are
 * confined, and nothing of the host: no paths, no PATH, no reasons that quote them), GET /ok,
 * GET /info (agent-chat-ui checks it on connect), GET /me (who the credentials name: `{ id, name,
 * role, auth }`, as the gateway's GET /api/me answers).
 */
export function registerMetaRoutes(app: FastifyInstance, options: MetaRoutesOptions): void {
  app.get("/healthz", async () => {
    const { backend, isolated, isolation, fallback, warning, memory } = await options.sandbox();
    const hostPrograms = options.hostIsolation();
    return {
      // "warning": bubblewrap was expected (installed) or named but cannot start a sandbox; the service still answers.
      status: warning ? "warning" : "ok",
      sandbox: { backend, isolated, isolation, ...(fallback ? { fallback: healthzFallback } : {}), ...(warning ? { warning } : {}), memory: { mode: memory.mode } },
      host_programs: { isolation: hostPrograms.isolation, reason: hostPrograms.reason },
    };
  });
  app.get("/ok", async () => ({ ok: true }));
  app.get("/me", async (request) => {
    const caller = request.caller;
    if (!caller) throw new ThinktankError("UNAUTHENTICATED", "this server needs a caller: send X-API-Key: <key> or Authorization: Bearer <key or token>");
    return { id: caller.id, name: caller.name, role: caller.role, auth: caller.auth };
  });
  app.get("/info", async () => ({
    name: "thinktank-agent",
    graphs: [leadAgentGraphId],
    flags: { assistants: true, crons: options.crons ?? false, langsmith: false, store: true },
  }));
}
