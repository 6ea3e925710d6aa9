import { httpStatusFor, operatorId, ThinktankError } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import { oauthStatus, signInPage, signOut, userServerEntries, userServerPrefix } from "@thinktank/mcp";
import type { McpServerEntry, OAuthSignIn, OAuthTokenStore } from "@thinktank/mcp";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorResponses } from "../error-response.js";
import type { GatewayDeps } from "../gateway-deps.js";
import type { RoutePlugin } from "../route-plugin.js";

const nameParams = { type: "object", required: ["name"], properties: { name: { type: "string", pattern: "^[^/]{1,256}$" } } } as const;
const callbackPath = "/api/mcp/oauth/callback";

const statusSchema = {
  type: "object",
  required: ["server", "grant", "signed_in"],
  properties: {
    server: { type: "string" },
    grant: { type: "string", enum: ["authorization_code", "client_credentials"] },
    signed_in: { type: "boolean", description: "Tokens are stored for the server's current URL" },
    scopes: { type: "array", items: { type: "string" } },
    expires_at: { type: "string", description: "When the access token expires (it is refreshed before)" },
    refreshable: { type: "boolean" },
    signed_in_at: { type: "string" },
    url_changed: { type: "boolean", description: "Tokens are stored for the URL the server had before; they are not used" },
    needs_auth: { type: "object", properties: { reason: { type: "string" }, since: { type: "string" } } },
  },
} as const;

/**
 * OAuth 2.1 sign-in to remote MCP servers, for a web frontend: POST starts a sign-in and answers
 * the authorization URL to open; the authorization server sends the browser back to the callback
 * (a GET: it changes nothing a page could forge, the one-time `state` is what it trusts), which
 * stores the tokens and answers a small page or redirects to mcp.oauth.frontend_url. GET is the
 * status (never a token); DELETE forgets the tokens and revokes them where the server can.
 * Sign-ins are the caller's own (tokens per user and server): each route acts for
 * `request.caller` (the operator when the service is key-less), and the callback, which carries no
 * credentials, stores the tokens for whoever started that sign-in.
 */
const mcpOAuthRoutes: RoutePlugin = async (app, { config, deps }) => {
  const oauth = deps.mcpOAuth;
  if (!oauth) return;
  const lookup = (name: string, user: string): Promise<McpServerEntry | undefined> => findEntry(deps, name, user);
  const userOf = (request: FastifyRequest): string => request.caller?.id ?? operatorId;

  app.post<{ Params: { name: string }; Body: { return_to?: string } | undefined }>(
    "/api/mcp/servers/:name/auth",
    {
      config: { access: "user", audit: "mcp.sign_in.start" },
      schema: {
        summary: "Start an OAuth sign-in to a remote MCP server",
        description: "Answers the authorization URL to open in the user's browser. `return_to` is where the callback sends the browser afterwards: a page of this origin as a path (`/servers`, the console's), or an absolute URL on mcp.oauth.frontend_url's origin or one of gateway.allowed_origins.",
        tags: ["mcp"],
        params: nameParams,
        body: { type: "object", additionalProperties: false, properties: { return_to: { type: "string", maxLength: 2048 } } },
        response: {
          200: { type: "object", required: ["server", "authorization_url", "expires_at"], properties: { server: { type: "string" }, authorization_url: { type: "string" }, expires_at: { type: "string" } } },
          ...errorResponses(400, 401, 404, 409, 422, 500, 502),
        },
      },
    },
    async (request) => {
      const { name } = request.params;
      const user = userOf(request);
      const entry = await lookup(name, user);
      if (!entry) throw notFound(name);
      const returnTo = request.body?.return_to;
      if (returnTo !== undefined) checkReturnTo(returnTo, config);
      const redirectUrl = config.mcp.oauth.callback_url ?? `${request.protocol}://${request.host}${callbackPath}`;
      const started = await oauth.signIn.start(name, entry, { redirectUrl, user, ...(returnTo ? { returnTo } : {}) });
      request.log.info({ server: name }, "MCP sign-in started");
      return { server: name, authorization_url: started.authorizationUrl, expires_at: new Date(started.expiresAt).toISOString() };
    },
  );

  app.get<{ Params: { name: string } }>(
    "/api/mcp/servers/:name/auth",
    { config: { access: "user" }, schema: { summary: "Sign-in status of a remote MCP server (never a token)", tags: ["mcp"], params: nameParams, response: { 200: statusSchema, ...errorResponses(400, 404, 500) } } },
    async (request) => {
      const { name } = request.params;
      const entry = await lookup(name, userOf(request));
      const store = tokensOf(oauth.store, entry, userOf(request));
      if (!entry && !store.get(name)) throw notFound(name);
      return oauthStatus(store, name, entry, config.env);
    },
  );

  app.delete<{ Params: { name: string } }>(
    "/api/mcp/servers/:name/auth",
    {
      config: { access: "user", audit: "mcp.sign_out" },
      schema: {
        summary: "Sign out of a remote MCP server: forget its tokens, and revoke them where the server supports RFC 7009",
        tags: ["mcp"],
        params: nameParams,
        response: { 200: { type: "object", required: ["server", "forgotten", "revoked"], properties: { server: { type: "string" }, forgotten: { type: "boolean" }, revoked: { type: "boolean" }, revocation: { type: "string" } } }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const { name } = request.params;
      const entry = await lookup(name, userOf(request));
      // Only the caller's own sign-in: another user's, and the operator's client-credentials tokens, stay.
      const store = oauth.store.forUser(userOf(request));
      if (!entry && !store.get(name)) throw notFound(name);
      const result = await signOut({ store, server: name, entry, env: config.env, fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(config.mcp.connect_timeout_ms) }) });
      request.log.info({ server: name, revoked: result.revoked }, "MCP sign-out");
      return result;
    },
  );

  app.get<{ Querystring: Record<string, string | undefined> }>(
    callbackPath,
    {
      // The query carries the authorization code: keep this route's request lines out of the log.
      logLevel: "warn",
      // A browser comes back here without credentials; the one-time state says whose sign-in it is.
      config: { access: "public", audit: "mcp.sign_in" },
      schema: {
        summary: "Where the authorization server sends the browser back after a sign-in",
        description: "Exchanges the code, stores the tokens, and answers a small page (or redirects to mcp.oauth.frontend_url / the sign-in's return_to with mcp_server and mcp_auth=connected|failed).",
        tags: ["mcp"],
        querystring: { type: "object", properties: { state: { type: "string", maxLength: 512 }, code: { type: "string", maxLength: 4096 }, error: { type: "string", maxLength: 256 }, error_description: { type: "string", maxLength: 1024 }, iss: { type: "string", maxLength: 2048 } } },
      },
    },
    async (request, reply) => answerCallback(request, reply, oauth.signIn, config, lookup, app.log),
  );
};

async function answerCallback(
  request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>,
  reply: FastifyReply,
  signIn: OAuthSignIn,
  config: Config,
  lookup: (name: string, user: string) => Promise<McpServerEntry | undefined>,
  log: { info(details: object, message: string): void },
): Promise<FastifyReply> {
  const { state, code, error, error_description: description, iss } = request.query;
  const back = signIn.returnToOf(state) ?? config.mcp.oauth.frontend_url;
  try {
    const done = await signIn.finish({ state, code, error, error_description: description, iss }, lookup);
    log.info({ server: done.server, user: done.user, scopes: done.scopes }, "MCP sign-in completed");
    request.audit = { target: done.server, outcome: "ok", detail: { user: done.user } };
    if (back) return reply.redirect(withOutcome(back, { mcp_server: done.server, mcp_auth: "connected" }), 303);
    return reply.type("text/html; charset=utf-8").send(signInPage({ ok: true, server: done.server }));
  } catch (failure) {
    if (!(failure instanceof ThinktankError)) throw failure;
    const server = typeof failure.details?.server === "string" ? failure.details.server : undefined;
    log.info({ code: failure.code, ...(server ? { server } : {}) }, "MCP sign-in failed");
    request.audit = { ...(server ? { target: server } : {}), outcome: "failed", detail: { code: failure.code } };
    if (back) return reply.redirect(withOutcome(back, { ...(server ? { mcp_server: server } : {}), mcp_auth: "failed", code: failure.code }), 303);
    if (!(request.headers.accept ?? "").includes("text/html")) throw failure;
    return reply.status(httpStatusFor(failure.code)).type("text/html; charset=utf-8").send(signInPage({ ok: false, code: failure.code, message: failure.message }));
  }
}

/** A server as `user` sees it: one of their own (`~<name>`), a configured one, else a plugin's `<plugin>:<server>`. */
async function findEntry(deps: GatewayDeps, name: string, user: string): Promise<McpServerEntry | undefined> {
  const { document } = await deps.store.read();
  if (name.startsWith(userServerPrefix)) return user === operatorId ? undefined : userServerEntries(document.users, user)[name];
  const configured = document.mcpServers;
  if (Object.hasOwn(configured, name)) return configured[name] as McpServerEntry;
  const plugin = ((await deps.listPluginServers?.()) ?? []).find((server) => server.name === name);
  return plugin?.entry as McpServerEntry | undefined;
}

/**
 * Whose tokens a status reads: the user's own, except for a client_credentials server, whose
 * tokens are the service's (fetched by the operator's session, one for everyone).
 */
function tokensOf(store: OAuthTokenStore, entry: McpServerEntry | undefined, user: string): OAuthTokenStore {
  const grant = (entry?.oauth as { grant?: unknown } | undefined)?.grant;
  return grant === "client_credentials" ? store : store.forUser(user);
}

/** A stand-in origin for reading a path on its own (never contacted). */
const pathBase = "http://return-to.invalid";

/**
 * A path of the gateway's own origin (the console's pages, e.g. `/servers`): starts with one `/`,
 * is already in the form a URL parser gives it (so no `//host`, `/\host`, `/../`, control
 * characters or spaces that a browser might read as another origin), and stays on this origin.
 */
function isSameOriginPath(returnTo: string): boolean {
  if (!returnTo.startsWith("/") || returnTo.startsWith("//") || /[\\\s\u0000-\u001f\u007f]/.test(returnTo)) return false;
  let url: URL;
  try {
    url = new URL(returnTo, pathBase);
  } catch {
    return false;
  }
  return url.origin === pathBase && !url.pathname.startsWith("//") && `${url.pathname}${url.search}${url.hash}` === returnTo;
}

/** Only back to this origin's own pages, the frontend's origin or an allowed one: never an open redirect. */
function checkReturnTo(returnTo: string, config: Config): void {
  if (returnTo.startsWith("/")) {
    if (isSameOriginPath(returnTo)) return;
    throw new ThinktankError("OAUTH_REDIRECT_NOT_ALLOWED", "return_to as a path must be one of this origin's own pages: /<path>, not //, a backslash, a dot segment or a control character", { details: { return_to: returnTo.slice(0, 200) } });
  }
  let origin: string;
  try {
    origin = new URL(returnTo).origin;
  } catch {
    throw new ThinktankError("OAUTH_REDIRECT_NOT_ALLOWED", "return_to is not an absolute URL");
  }
  const allowed = new Set(config.gateway.allowed_origins);
  if (config.mcp.oauth.frontend_url) allowed.add(new URL(config.mcp.oauth.frontend_url).origin);
  if (!allowed.has(origin)) {
    throw new ThinktankError("OAUTH_REDIRECT_NOT_ALLOWED", `return_to must be on mcp.oauth.frontend_url's origin or one of gateway.allowed_origins, not ${origin}`, { details: { origin } });
  }
}

/** The target with the outcome in its query: an absolute URL, or a same-origin path kept a path (a relative redirect). */
function withOutcome(target: string, params: Record<string, string>): string {
  const local = target.startsWith("/");
  const url = local ? new URL(target, pathBase) : new URL(target);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return local ? `${url.pathname}${url.search}${url.hash}` : url.href;
}

function notFound(name: string): ThinktankError {
  return new ThinktankError("MCP_SERVER_NOT_FOUND", `no MCP server named '${name}' (configured or from a plugin)`, { details: { name } });
}

export default mcpOAuthRoutes;
