import cors from "@fastify/cors";
import Fastify, { type FastifyInstance } from "fastify";
import { httpStatusFor, isThinktankError, type Config } from "@thinktank/core";
import { createRequestHumanInputTool } from "../graph/request-human-input-tool.js";
import { openAgentStore, type AgentStore } from "../persistence/open-agent-store.js";
import { prepareRequest, type PrepareRequestOptions } from "../request/prepare-request.js";
import type { RequestProvider } from "../request/request-context.js";
import { RunManager } from "../runs/run-manager.js";
import { ThreadService } from "../threads/thread-service.js";
import { createFileToolsProvider } from "../tools/file-tools.js";
import type { AgentRouteContext } from "./agent-route-context.js";
import { isLoopbackHost, isLoopbackOrigin, keyMatches, presentedKey } from "./check-api-key.js";
import { registerAssistantRoutes } from "./routes/assistant-routes.js";
import { registerMetaRoutes } from "./routes/meta-routes.js";
import { registerRunRoutes } from "./routes/run-routes.js";
import { registerThreadRoutes } from "./routes/thread-routes.js";

export interface AgentServerDeps {
  /** Threads and checkpoints. @default openAgentStore(config): SQLite, or Postgres when configured */
  readonly store?: AgentStore;
  /**
   * What each run's prompt and tools are made of (skills, plugins, codemode, registered tools).
   * @default the starter set: read_file and ls over /mnt/skills and /mnt/user-data, and request_human_input
   */
  readonly providers?: readonly RequestProvider[];
  /** Passed to prepareRequest (a custom model factory, the role text). @default {} */
  readonly prepare?: PrepareRequestOptions;
  /** The clock for timestamps and the prompt's date. @default () => new Date() */
  readonly clock?: () => Date;
  /** Fastify's logger: false, or pino options. @default { level: config.log.level } */
  readonly logger?: boolean | { level: string };
  /**
   * Mounts the MCP endpoint (streamable HTTP at /mcp) on the same server. Called after the
   * authentication hook is in place, so /mcp needs THINKTANK_API_KEY when it is set.
   */
  readonly mountMcpEndpoint?: (app: FastifyInstance) => Promise<void> | void;
}

export interface AgentServer {
  readonly app: FastifyInstance;
  readonly runs: RunManager;
  readonly store: AgentStore;
  /** Stops runs, closes the HTTP server and the store. */
  close(): Promise<void>;
}

/** The starting set of request providers: file tools over the virtual folders and request_human_input. */
export function defaultRequestProviders(config: Config): RequestProvider[] {
  return [
    createFileToolsProvider({ skillsContainerPath: config.skills.container_path, skillsHostPath: config.skills.path }),
    { name: "human-input", contribute: () => ({ tools: [createRequestHumanInputTool()] }) },
  ];
}

/**
 * The agent server without listening: the LangGraph Platform HTTP API for graph lead_agent
 * (assistants, threads, runs with SSE streaming, interrupts), GET /healthz, and the /mcp seam.
 *
 * Auth: with THINKTANK_API_KEY set every route except /healthz needs it (X-API-Key or Bearer).
 * Without it the server must listen on loopback (start.ts refuses other hosts) and answers only
 * requests whose Host is loopback, so a web page cannot reach it through DNS rebinding; browsers
 * may call it from loopback origins only (CORS), e.g. agent-chat-ui on localhost:3000.
 */
export async function buildAgentServer(config: Config, deps: AgentServerDeps = {}): Promise<AgentServer> {
  const clock = deps.clock ?? (() => new Date());
  const store = deps.store ?? (await openAgentStore(config));
  const app = Fastify({ logger: deps.logger ?? { level: config.log.level }, bodyLimit: 16 * 1024 * 1024 });
  const closedRuns = await store.metadata.closeStaleRuns(clock().toISOString());
  if (closedRuns > 0) app.log.warn({ runs: closedRuns }, "runs left pending or running by a previous process were marked as error");

  const threads = new ThreadService(store, clock);
  const providers = deps.providers ?? defaultRequestProviders(config);
  const runs = new RunManager({
    config,
    store,
    threads,
    clock,
    prepare: (request) => prepareRequest(request, providers, deps.prepare),
    onError: (error, runId) => app.log.error({ err: error, runId }, "run bookkeeping failed"),
  });

  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin === undefined || config.api_key !== undefined || isLoopbackOrigin(origin)),
    exposedHeaders: ["content-location", "location", "x-pagination-next"],
  });

  app.addHook("onRequest", async (request, reply) => {
    if (request.method === "OPTIONS") return;
    if (config.api_key === undefined) {
      if (!isLoopbackHost(request.headers.host)) {
        return reply.code(403).send({ code: "FORBIDDEN", message: "without THINKTANK_API_KEY the agent server answers loopback hosts only (localhost, 127.0.0.1)" });
      }
      return;
    }
    if (request.url === "/healthz") return;
    if (!keyMatches(presentedKey(request), config.api_key)) {
      return reply.code(401).send({ code: "UNAUTHORIZED", message: "missing or wrong API key: send X-API-Key: <key> or Authorization: Bearer <key>" });
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (isThinktankError(error)) return reply.code(httpStatusFor(error.code)).send(error.toJSON());
    const fastifyError = error as { validation?: unknown; statusCode?: number; code?: string; message: string };
    if (fastifyError.validation) return reply.code(400).send({ code: "VALIDATION_FAILED", message: fastifyError.message });
    if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return reply.code(400).send({ code: "BAD_REQUEST", message: fastifyError.message });
    if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") return reply.code(413).send({ code: "PAYLOAD_TOO_LARGE", message: fastifyError.message });
    if (fastifyError.statusCode && fastifyError.statusCode < 500) return reply.code(400).send({ code: "BAD_REQUEST", message: fastifyError.message });
    request.log.error({ err: error }, "unexpected error");
    return reply.code(500).send({ code: "INTERNAL", message: "internal error (see the agent server's log)" });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ code: "NOT_FOUND", message: `no route ${request.method} ${request.url.split("?")[0]}` }));

  const context: AgentRouteContext = { config, threads, runs, clock, startedAt: clock().toISOString() };
  registerMetaRoutes(app);
  registerAssistantRoutes(app, context);
  registerThreadRoutes(app, context);
  registerRunRoutes(app, context);
  await deps.mountMcpEndpoint?.(app);

  return {
    app,
    runs,
    store,
    close: async () => {
      await runs.shutdown();
      await app.close();
      await store.close();
    },
  };
}
