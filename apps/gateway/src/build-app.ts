/**
 * The gateway's Fastify app. `buildApp(config, deps)` only builds; `startGateway` listens.
 *
 * Adding an area's routes: write `routes/<area>.ts` default-exporting a `RoutePlugin`
 * (`async (app, { config, deps }) => { app.get(...) }`), give every route JSON Schemas for its
 * params/query/body/response (they become the OpenAPI document), throw ThinktankError for
 * failures (the error handler turns them into `{ code, message }`), then add ONE line to
 * `routePlugins` below. Host/Origin checks, auth, request ids, logging, multipart, limits and errors already apply.
 * Every route says who may use it in its config, `access: "public" | "user" | "admin"` (auth-hook.ts; admin
 * when it says nothing), and a route that changes something names its audit action (`audit: "area.verb"`).
 * Put the area's service on `GatewayDeps` (gateway-deps.ts) rather than building it in the route.
 */
import multipart from "@fastify/multipart";
import { jsonNestingLimits, jsonTextNesting, maxPathParamLength, requestIdFor, ThinktankError } from "@thinktank/core";
import { AccessLogController, lazySchemaCompilers, registerRequestSourceGuard } from "@thinktank/http";
import { openIdentity } from "@thinktank/identity";
import type { Identity } from "@thinktank/identity";
import type { Config } from "@thinktank/core";
import Fastify from "fastify";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createAuditHook } from "./audit-hook.js";
import { registerAgentProxy } from "./agent-proxy.js";
import { createAdminFieldsHook, createAuthHook } from "./auth-hook.js";
import { registerConsoleSite, type ConsoleSite } from "./console-site.js";
import { errorResponseSchema, toErrorResponse } from "./error-response.js";
import type { GatewayDeps } from "./gateway-deps.js";
import { registerOpenApi } from "./openapi.js";
import type { RoutePlugin, RouteSummary } from "./route-plugin.js";
import healthRoutes from "./routes/health.js";
import marketplacesRoutes from "./routes/marketplaces.js";
import memoryRoutes from "./routes/memory.js";
import mcpRoutes from "./routes/mcp.js";
import mcpOAuthRoutes from "./routes/mcp-oauth.js";
import pluginsRoutes from "./routes/plugins.js";
import skillsRoutes from "./routes/skills.js";
import agentsRoutes from "./routes/agents.js";
import auditRoutes from "./routes/audit.js";
import toolsRoutes from "./routes/tools.js";
import usersRoutes from "./routes/users.js";
import sessionRoutes from "./routes/session.js";

const routePlugins: readonly RoutePlugin[] = [
  healthRoutes,
  mcpRoutes,
  mcpOAuthRoutes,
  skillsRoutes,
  agentsRoutes,
  pluginsRoutes,
  toolsRoutes,
  marketplacesRoutes,
  usersRoutes,
  auditRoutes,
  memoryRoutes,
  sessionRoutes,
  // any later area: one line each
];

declare module "fastify" {
  interface FastifyInstance {
    /** Every route registered so far (HEAD twins of GET routes left out). */
    routeTable: readonly RouteSummary[];
  }
}

const mebibyte = 1024 * 1024;

/** Every error answer: `{ code, message, details? }` with its status (see toErrorResponse). */
function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body, internal } = toErrorResponse(error, request.id);
  if (internal) request.log.error({ err: error }, "request failed");
  else request.log.info({ code: body.code, status }, body.message);
  // RFC 6750: credentials that were sent and refused are an invalid_token (a client refreshes or signs in again).
  if (body.code === "UNAUTHENTICATED") reply.header("www-authenticate", `Bearer realm="thinktank"${body.details?.reason === undefined ? "" : ', error="invalid_token"'}`);
  // Router errors skip the onRequest hooks, which set this header for every other answer.
  reply.header("x-request-id", request.id);
  return reply.status(status).type("application/json; charset=utf-8").send(body);
}

export function buildApp(config: Config, deps: GatewayDeps): FastifyInstance {
  const maxBytes = Math.floor(config.gateway.max_upload_mb * mebibyte);
  const app = Fastify({
    // pino's own Logger type is wider than Fastify's; the instance is the same pino logger.
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // One access line per request, at debug unless it failed or was slow (docs/architecture.md).
    logController: new AccessLogController({ slowMs: config.gateway.slow_request_ms }),
    bodyLimit: maxBytes,
    // A long :name reaches its route's params schema (400 VALIDATION_FAILED), not the router's 414;
    // the router's own errors (a bad percent escape) answer in our shape too.
    routerOptions: { maxParamLength: maxPathParamLength },
    frameworkErrors: sendError,
    // Route validators and response serializers compile on first use, not at start (packages/http, lazySchemaCompilers).
    schemaController: lazySchemaCompilers(),
  });

  const routeTable: RouteSummary[] = [];
  app.decorate("routeTable", routeTable);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // Forwarded routes (/agent/*) are the agent's API, documented by the agent, not here.
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide) || route.config?.forwarded === true;
    for (const method of methods) if (method !== "HEAD") routeTable.push({ method, url: route.url, hidden });
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  const sourcePolicy = { boundHost: config.gateway.host, allowedHosts: config.gateway.allowed_hosts, allowedOrigins: config.gateway.allowed_origins };
  registerRequestSourceGuard(app, { ...sourcePolicy, exposedHeaders: ["etag", "location", "x-request-id"] });
  // Users, keys and the audit log: the deps' own, else opened from config once the app gets ready (closed with it).
  let identity: Identity | undefined = deps.identity;
  const identityOf = (): Identity => {
    if (!identity) throw new ThinktankError("NOT_CONFIGURED", "the identity service is not open yet");
    return identity;
  };
  app.register(async (scope) => {
    if (identity) return;
    const opened = await openIdentity(config, { logger: deps.logger, consoleSignIn: true });
    identity = opened;
    scope.addHook("onClose", async () => opened.close());
  });
  app.decorateRequest("caller", undefined);
  app.decorateRequest("audit", undefined);
  app.addHook("onRequest", createAuthHook({ identity: identityOf, keyless: !config.api_key }));
  app.addHook("preValidation", createAdminFieldsHook(identityOf));
  app.addHook("onSend", createAuditHook(identityOf));

  app.setErrorHandler(sendError);
  // The web console (config.console): its assets and `/`, and index.html for client-side routes no route matches.
  let consoleSite: ConsoleSite | undefined;
  app.setNotFoundHandler(async (request, reply) => {
    if (consoleSite && (await consoleSite.fallback(request, reply))) return reply;
    return reply.status(404).send({ code: "NOT_FOUND", message: `no route ${request.method} ${request.url.split("?")[0]}` });
  });

  app.addSchema(errorResponseSchema);
  refuseDeepJsonBodies(app);
  app.register(multipart, {
    limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: mebibyte, parts: 40, headerPairs: 200 },
  });
  registerOpenApi(app);
  for (const plugin of routePlugins) app.register(plugin, { config, deps, identity: identityOf });
  if (config.console.enabled) {
    consoleSite = registerConsoleSite(app, deps.consoleDir);
    registerAgentProxy(app, config, sourcePolicy);
  }
  // The sandbox the skill and plugin answers asked (made on first use): its workers go with the app.
  app.addHook("onClose", async () => deps.sandbox?.close());
  return app;
}

/**
 * Fastify's JSON parser behind one more check on the text: a body nested deeper than
 * jsonNestingLimits.requestBody is 400 VALIDATION_FAILED before it is parsed, since every later
 * walk over it (validation, masking, structuredClone in the store) would overflow the stack.
 */
function refuseDeepJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  const limit = jsonNestingLimits.requestBody;
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (jsonTextNesting(body as string, limit) > limit) return done(new ThinktankError("VALIDATION_FAILED", `the JSON body nests deeper than ${limit} levels`), undefined);
    parseJson(request, body as string, done);
  });
}
