import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { AccessLogController, lazySchemaCompilers, registerRequestSourceGuard } from "@thinktank/http";
import { createLogger, hostConfinementFor, httpStatusFor, isThinktankError, maxPathParamLength, requestIdFor, secureDataFolder, type Config, type HostConfinement, type Logger } from "@thinktank/core";
import { ThreadFiles, createDocumentConverter, type DocumentConverter } from "@thinktank/files";
import { openIdentity, type Identity } from "@thinktank/identity";
import { AssistantService, RunManager, StoreService, ThreadService, type CronFire, type RunEventStore, type RunQueue } from "@thinktank/runs";
import { leadAssistant, leadAssistantId } from "../assistants/lead-assistant.js";
import { assistantSettingsCheck, runAssistantFor } from "../assistants/assistant-wiring.js";
import { leadAgentGraphId } from "../graph/build-lead-agent-graph.js";
import { leadAgentExecutor } from "../graph/lead-agent-executor.js";
import { buildStateGraph } from "../graph/state-graph.js";
import { LeadAgentState } from "../graph/lead-agent-state.js";
import { openAgentStore, type AgentStore } from "../persistence/open-agent-store.js";
import { openRunEvents } from "../persistence/open-run-events.js";
import { agentRequestProviders } from "../providers/agent-request-providers.js";
import type { PrepareRequestOptions } from "../request/prepare-request.js";
import type { RequestProvider } from "../request/request-context.js";
import { AgentRuntime } from "../runtime/agent-runtime.js";
import type { AgentRouteContext } from "./agent-route-context.js";
import { registerCallerHook } from "./caller-hook.js";
import { openCrons } from "./open-crons.js";
import { useJsonBodyParser } from "./json-body-parser.js";
import { registerAssistantRoutes } from "./routes/assistant-routes.js";
import { registerCronRoutes } from "./routes/cron-routes.js";
import { registerFileRoutes } from "./routes/file-routes.js";
import { registerMetaRoutes } from "./routes/meta-routes.js";
import { registerRunRoutes, truthy } from "./routes/run-routes.js";
import { registerStoreRoutes } from "./routes/store-routes.js";
import { registerThreadRoutes } from "./routes/thread-routes.js";
import { cancelledDelegations } from "../subagents/delegation-record.js";
import { AgentAutoMemory, type AgentAutoMemoryOptions } from "../memory/agent-auto-memory.js";

export interface AgentServerDeps {
  /** Threads and checkpoints. @default openAgentStore(config): SQLite, or Postgres when configured */
  readonly store?: AgentStore;
  /** Users, keys and the audit log: who calls. @default openIdentity(config) (the threads database), closed with the server */
  readonly identity?: Identity;
  /**
   * The long-lived state behind each request: snapshots of extensions_config.json, skills and
   * plugins, the MCP manager, the sandbox and code mode. Closed with the server when created here.
   * @default new AgentRuntime(config, { logger: app.log })
   */
  readonly runtime?: AgentRuntime;
  /**
   * What each run's prompt and tools are made of.
   * @default agentRequestProviders(runtime, { extra: extraProviders, uploads: the thread files }): universal tools, skills, slash commands, request_human_input, the MCP surface
   */
  readonly providers?: readonly RequestProvider[];
  /** Providers after the default ones: the seam for @thinktank/tools (registered script tools, built-ins). @default [] */
  readonly extraProviders?: readonly RequestProvider[];
  /**
   * How programs started on the host are confined (trusted script tools, stdio MCP servers), when
   * the runtime is made here; else the runtime's. @default hostConfinementFor(config)
   */
  readonly hostConfinement?: HostConfinement;
  /** Passed to prepareRequest (a custom model factory, the role text). @default {} */
  readonly prepare?: PrepareRequestOptions;
  /** The clock for timestamps and the prompt's date. @default () => new Date() */
  readonly clock?: () => Date;
  /** Fastify's logger: false, or its level (core's createLogger, which masks secrets as the gateway's does). @default { level: config.log.level } */
  readonly logger?: boolean | { level: string };
  /**
   * Mounts the MCP endpoint (streamable HTTP at /mcp) on the same server. Called after the
   * authentication hook is in place, so /mcp needs a caller as every route but /healthz does.
   * @default the runtime's code mode endpoint (list_servers, search_tools, execute_code over the same MCP manager)
   */
  readonly mountMcpEndpoint?: (app: FastifyInstance) => Promise<void> | void;
  /** Hears each cron fire (tests, the benchmark). @default none */
  readonly onCronFire?: (fire: CronFire) => void;
  /** Makes Markdown versions of uploaded documents. @default createDocumentConverter over the runtime's sandbox when files.conversion.enabled, else none */
  readonly converter?: DocumentConverter;
  /** Automatic memory's model (tests). @default createChatModel(config, config.memory.model) */
  readonly memoryModel?: AgentAutoMemoryOptions["createModel"];
  /** Hears each automatic memory pass (tests). @default none */
  readonly onAutoMemoryPass?: AgentAutoMemoryOptions["onPass"];
}

export interface AgentServer {
  readonly app: FastifyInstance;
  readonly runs: RunManager;
  readonly store: AgentStore;
  readonly runtime: AgentRuntime;
  /** Users, keys and the audit log the server authenticates with. */
  readonly identity: Identity;
  /** A thread's files (uploads, listing, serving), removed and copied with their thread. */
  readonly files: ThreadFiles;
  /** Automatic memory after runs end (memory.auto, users' switches): its scheduler's idle() says when no pass waits. */
  readonly autoMemory: AgentAutoMemory;
  /** Every route it serves (method and URL pattern, HEAD and OPTIONS aside): for tests that must cover each. */
  readonly routes: readonly { readonly method: string; readonly url: string }[];
  /** Stops runs, closes the HTTP server, the runtime (MCP servers, sandbox workers), identity and the store. */
  close(): Promise<void>;
}

/** A GET that joins a run's stream and cancels the run when the client disconnects. */
function cancelsOnDisconnect(method: string, url: string): boolean {
  if (method !== "GET" || !url.includes("/stream")) return false;
  const query = url.indexOf("?");
  if (query < 0) return false;
  const value = new URLSearchParams(url.slice(query + 1)).get("cancel_on_disconnect");
  return truthy(value);
}

/** Every error answer, `{ code, message }`: thrown errors, and the router's own (a bad escape, a segment past maxPathParamLength). */
function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isThinktankError(error)) return reply.code(httpStatusFor(error.code)).send(error.toJSON());
  const fastifyError = error as { validation?: unknown; statusCode?: number; code?: string; message: string };
  if (fastifyError.validation) return reply.code(400).send({ code: "VALIDATION_FAILED", message: fastifyError.message });
  if (fastifyError.code === "FST_ERR_MAX_PARAM_LENGTH") return reply.code(400).send({ code: "VALIDATION_FAILED", message: `a path segment is longer than ${maxPathParamLength} characters` });
  if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return reply.code(400).send({ code: "BAD_REQUEST", message: fastifyError.message });
  if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") return reply.code(413).send({ code: "PAYLOAD_TOO_LARGE", message: fastifyError.message });
  if (fastifyError.statusCode && fastifyError.statusCode < 500) return reply.code(400).send({ code: "BAD_REQUEST", message: fastifyError.message });
  request.log.error({ err: error }, "unexpected error");
  return reply.code(500).send({ code: "INTERNAL", message: "internal error (see the agent server's log)" });
}

/**
 * The agent server without listening: the LangGraph Platform HTTP API for graph lead_agent
 * (assistants, threads, runs with SSE streaming, interrupts), GET /healthz, and the /mcp seam.
 *
 * Auth: every route except /healthz needs a caller (caller-hook.ts: a user key, a JWT, or
 * THINKTANK_API_KEY, as X-API-Key or Bearer; without a key configured, the local operator), and
 * answers with their own threads, runs and store items (@thinktank/runs, Access).
 * Without THINKTANK_API_KEY the server must listen on loopback (start.ts refuses other hosts). Either way it
 * answers only requests whose Host names it (DNS rebinding), and takes mutating requests from a
 * browser only from `agent.allowed_origins`, which also get CORS (e.g. agent-chat-ui on
 * http://localhost:3000): docs/architecture.md, "Requests from browsers".
 */
export async function buildAgentServer(config: Config, deps: AgentServerDeps = {}): Promise<AgentServer> {
  const clock = deps.clock ?? (() => new Date());
  // The data folder 0700 (0710 for the sandbox user's group as root), its databases, logs and keys 0600: before anything is created in it.
  const secured = secureDataFolder(config);
  const store = deps.store ?? (await openAgentStore(config));
  const app = Fastify({
    // core's logger masks secrets (URL query values, Bearer credentials, secret-named fields) in every
    // line, the access log's URLs and the MCP manager's reasons included; Fastify's own pino did not.
    ...(deps.logger === false ? { logger: false } : { loggerInstance: createLogger({ level: (deps.logger === true || deps.logger === undefined ? config.log.level : deps.logger.level) as Config["log"]["level"] }) as FastifyBaseLogger }),
    bodyLimit: 16 * 1024 * 1024,
    // An over-long thread id meets the thread-id rule (400 VALIDATION_FAILED), not the router's 414; router errors get our shape.
    routerOptions: { maxParamLength: maxPathParamLength },
    frameworkErrors: sendError,
    // One access line per request, at debug unless it failed or was slow; X-Request-Id ties a run's lines together.
    logController: new AccessLogController({ slowMs: config.agent.slow_request_ms }),
    genReqId: requestIdFor,
    requestIdHeader: false,
    // Route validators and response serializers compile on first use, not at start (packages/http, lazySchemaCompilers).
    schemaController: lazySchemaCompilers(),
  });
  const routes: { method: string; url: string }[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) if (method !== "HEAD" && method !== "OPTIONS") routes.push({ method, url: route.url });
  });
  if (secured.changed.length > 0) app.log.info({ paths: secured.changed }, "tightened the modes of the data folder and its private files (nothing in them is for other local users)");
  if (secured.problems.length > 0) app.log.warn({ problems: secured.problems }, "could not tighten the modes of some private files");
  const closedRuns = await store.metadata.closeStaleRuns(clock().toISOString());
  if (closedRuns > 0) app.log.warn({ runs: closedRuns }, "runs left pending or running by a previous process were marked as error");
  let identity: Identity;
  try {
    // app.log is core's logger (createLogger) or Fastify's silent one: both have the levels identity logs at.
    identity = deps.identity ?? (await openIdentity(config, { logger: app.log as unknown as Logger, clock }));
  } catch (error) {
    await app.close();
    if (!deps.store) await store.close();
    throw error;
  }
  const closeIdentity = async () => {
    if (!deps.identity) await identity.close();
  };

  const runtime = deps.runtime ?? new AgentRuntime(config, { logger: app.log, hostConfinement: deps.hostConfinement ?? hostConfinementFor(config) });
  const converter = deps.converter ?? (config.files.conversion.enabled ? createDocumentConverter({ config, executor: runtime.executor, logger: app.log }) : undefined);
  const files = new ThreadFiles({ config, clock, converter, ensureWorkspace: (threadId) => runtime.executor.workspaceFor(threadId) });
  const threads = new ThreadService({
    store,
    clock,
    // Deleting a thread (its route, a prune, a stateless run's end) removes its files; a copy copies them.
    folders: { remove: (threadId) => files.removeThread(threadId), copy: (from, to) => files.copyThread(from, to) },
    stateGraph: buildStateGraph(store.checkpointer),
    threadMetadata: { graph_id: leadAgentGraphId, assistant_id: leadAssistantId },
    maxStateBytes: config.agent.threads.max_state_mb * 1024 * 1024,
    historyMaxBytes: config.agent.threads.history_max_mb * 1024 * 1024,
    // A cancelled run's open task calls are recorded as cancelled delegations.
    cancelledValues: cancelledDelegations,
    // A run's input or a state update naming another key is refused, not ignored.
    stateKeys: Object.keys(LeadAgentState.spec),
  });
  // Found once, now (a probe of bubblewrap, unshare, setpriv), not in the first request; startAgentServer says what it found.
  const hostIsolation = await runtime.hostConfinement.detect();
  if (hostIsolation.detail) app.log.debug({ detail: hostIsolation.detail }, `host programs: ${hostIsolation.isolation}`);
  if (!deps.providers) {
    // A missing or malformed extensions_config.json (or tools registry) stops the start; the first run finds warm caches.
    try {
      await runtime.start();
    } catch (error) {
      if (!deps.runtime) await runtime.close();
      await app.close();
      await closeIdentity();
      if (!deps.store) await store.close();
      throw error;
    }
  }
  const providers = deps.providers ?? agentRequestProviders(runtime, { extra: deps.extraProviders ?? [], uploads: files });
  // Postgres: runs are rows the replicas on the database share (admission, claims, heartbeats, cancels) and
  // their events are shared too; SQLite: this process's queue and events in memory.
  let events: RunEventStore | undefined;
  let queue: RunQueue | undefined;
  try {
    events = await openRunEvents(config, app.log);
    queue = await store.openRunQueue?.({ heartbeatSeconds: config.agent.runs.heartbeat_seconds, staleAfterSeconds: config.agent.runs.stale_after_seconds, clock, log: app.log });
  } catch (error) {
    await events?.close?.();
    if (!deps.runtime) await runtime.close();
    await app.close();
    await closeIdentity();
    if (!deps.store) await store.close();
    throw error;
  }
  // Assistants: lead_agent's built-in one and the stored ones; a run uses the version current when it is created.
  const startedAt = clock().toISOString();
  const assistants = new AssistantService({
    store: store.assistants,
    builtIn: leadAssistant(startedAt),
    clock,
    maxPerOwner: config.assistants.max_per_owner,
    checkSettings: assistantSettingsCheck(config, runtime),
  });
  // Automatic memory hears each run's end after the run is over (never awaited by the run).
  const autoMemory = new AgentAutoMemory({
    config,
    settings: runtime.store,
    memory: runtime.memory,
    threads,
    checkpointer: store.checkpointer,
    assistantFor: (run) => runAssistantFor(assistants, run),
    logger: app.log,
    ...(deps.memoryModel ? { createModel: deps.memoryModel } : {}),
    ...(deps.onAutoMemoryPass ? { onPass: deps.onAutoMemoryPass } : {}),
  });
  const runs = new RunManager({
    store,
    threads,
    clock,
    execute: autoMemory.wrap(leadAgentExecutor({ config, checkpointer: store.checkpointer, providers, prepare: deps.prepare, assistantFor: (run) => runAssistantFor(assistants, run) })),
    events,
    queue,
    resolveAssistant: (assistantId, access) => assistants.resolve(assistantId, access),
    log: app.log,
  });

  // Crons (crons.enabled): fires are runs of `runs`, as each cron's owner; the scheduler starts once the routes are in place.
  const crons = await openCrons(config, {
    store,
    runs,
    threads,
    identity,
    resolveAssistant: (assistantId, access) => assistants.resolve(assistantId, access),
    clock,
    log: app.log,
    onFire: deps.onCronFire,
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  registerRequestSourceGuard(app, {
    boundHost: config.agent.host,
    allowedHosts: config.agent.allowed_hosts,
    allowedOrigins: config.agent.allowed_origins,
    exposedHeaders: ["content-location", "location", "x-pagination-next", "x-request-id"],
    // GET .../stream?cancel_on_disconnect=true cancels the run when the client goes: a mutation.
    changesState: cancelsOnDisconnect,
  });
  registerCallerHook(app, { identity, keyless: config.api_key === undefined });

  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ code: "NOT_FOUND", message: `no route ${request.method} ${request.url.split("?")[0]}` }));

  const context: AgentRouteContext = { config, threads, runs, assistants, store: new StoreService(store.items, clock), clock, startedAt };
  await app.register(async (api) => {
    useJsonBodyParser(api);
    registerMetaRoutes(api, { sandbox: () => runtime.codeMode.executor.describeBackend(), hostIsolation: () => runtime.hostConfinement.info, crons: crons !== undefined });
    registerAssistantRoutes(api, context);
    registerThreadRoutes(api, context);
    registerRunRoutes(api, context);
    registerStoreRoutes(api, context);
    registerCronRoutes(api, crons?.service);
  });
  // Multipart (with files.* limits) only for the file routes, in a context of their own.
  await app.register(async (api) => registerFileRoutes(api, { ...context, files }));
  const swept = await files.sweepStaging();
  if (swept > 0) app.log.info({ uploads: swept }, "removed uploads left half-done by a previous process");
  await (deps.mountMcpEndpoint ?? ((fastify: FastifyInstance) => runtime.codeMode.mountMcpEndpoint(fastify, { authenticate: (headers) => identity.authenticate(headers, { keyless: config.api_key === undefined }) })))(app);
  // Time missed while no agent server ran is found now (crons.on_missed); then each cron's time, as it comes.
  await crons?.scheduler.start();

  return {
    app,
    runs,
    store,
    runtime,
    identity,
    files,
    autoMemory,
    routes,
    close: async () => {
      await crons?.scheduler.close();
      await runs.shutdown();
      await autoMemory.close();
      await app.close();
      if (!deps.runtime) await runtime.close();
      await closeIdentity();
      await store.close();
    },
  };
}
