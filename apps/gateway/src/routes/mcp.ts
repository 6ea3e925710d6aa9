import { maskServerEntry, mcpServerEntrySchema, operatorId, ThinktankError } from "@thinktank/core";
import type { ExtensionsSnapshot, McpServerEntry } from "@thinktank/core";
import { liveServerState, oauthStatus, readCachedToolList, refusedUserServerEntries, serverStateView, userServerEntries, userServerName, userServerPrefix, userStdioRefusal } from "@thinktank/mcp";
import type { McpStatusReport, OAuthStatus, OAuthTokenStore, ServerStateInputs } from "@thinktank/mcp";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorResponses } from "../error-response.js";
import type { RoutePlugin } from "../route-plugin.js";

/** Names a PUT may create: no `:` (plugin servers are `<plugin>:<server>`), no `/`; a user may write their own server's name as `~<name>`. */
const configNamePattern = "^~?[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$";

const serverViewSchema = {
  type: "object",
  required: ["name", "source", "transport", "enabled", "config"],
  properties: {
    name: { type: "string" },
    source: { type: "string", description: '"config" (extensions_config.json), "plugin:<plugin>", or "user": the caller\'s own remote server (named `~<name>`, seen by them alone)' },
    transport: { type: "string", enum: ["stdio", "sse", "http", "unknown"] },
    enabled: { type: "boolean" },
    config: { type: "object", additionalProperties: true, description: "The entry as written, secrets masked, placeholders shown as written" },
    status: {
      type: "string",
      enum: ["connected", "connecting", "idle", "needs_auth", "unavailable", "denied", "shadowed", "disabled", "unknown"],
      description:
        "The server's state for the caller, live from the agent server's MCP manager (docs/mcp-manager.md, \"Server status\"): connected, connecting, idle (no session now: it connects on first use), needs_auth (the caller must sign in), unavailable (see reason). Decided by the configuration: denied (plugins.host_programs: deny), shadowed (a configured server has a plugin server's name), disabled (enabled: false). unknown: no agent server runs (the reason says which stopped and when), or it has not picked the server up yet; a server the configuration alone rules out is unavailable even then",
    },
    reason: { type: "string", description: "Why it is unavailable, needs sign-in, denied, shadowed, disabled or unknown (secrets masked)" },
    tool_count: { type: "integer", description: "Its tools: of the live session, else of the tool list cached for this entry (tools_from)" },
    tools_from: { type: "string", enum: ["live", "cache"] },
    protocol_version: { type: "string", description: "The MCP protocol version it agreed to in its last successful connect: 2026-07-28 (server/discover) or 2025-11-25 and earlier (initialize)" },
    code: { type: "string", enum: ["PROTOCOL_UNSUPPORTED"], description: "While unavailable because it speaks neither MCP era Thinktank speaks (the reason says so too)" },
    versions_tried: { type: "array", items: { type: "string" }, description: "With code PROTOCOL_UNSUPPORTED: the protocol versions tried, and how (server/discover, initialize)" },
    versions_offered: { type: "array", items: { type: "string" }, description: "With code PROTOCOL_UNSUPPORTED: the versions the server said it speaks, when it said" },
    last_error_at: { type: "string", format: "date-time", description: "When its last error happened (a failed connect, a lost session, a need for sign-in), kept after it recovers" },
    last_error: { type: "string", description: "What that error was (secrets masked)" },
    status_at: { type: "string", format: "date-time", description: "When the agent server wrote this state down (it looks every second)" },
    replicas: {
      type: "array",
      description: "Several agent servers on one data folder that each report the server: each one's state (status is the one that needs attention most)",
      items: {
        type: "object",
        required: ["replica", "status"],
        properties: { replica: { type: "string" }, status: { type: "string" }, reason: { type: "string" }, last_error_at: { type: "string", format: "date-time" } },
      },
    },
    auth: {
      type: "object",
      required: ["signed_in"],
      description: "Remote servers with an OAuth sign-in or a need for one (GET /api/mcp/servers/:name/auth has the details)",
      properties: { signed_in: { type: "boolean" }, grant: { type: "string" }, expires_at: { type: "string" } },
    },
  },
} as const;

const nameParams = (pattern: string) => ({ type: "object", required: ["name"], properties: { name: { type: "string", pattern } } }) as const;
const preconditionHeaders = {
  type: "object",
  properties: {
    "if-match": { type: "string", description: "Write only if the config's ETag still matches (else 412)" },
    "if-none-match": { type: "string", description: "`*`: create only, 412 if the server exists" },
  },
} as const;

interface ServerView {
  name: string;
  source: string;
  transport: "stdio" | "sse" | "http" | "unknown";
  enabled: boolean;
  config: Record<string, unknown>;
  status?: string;
  reason?: string;
  auth?: { signed_in: boolean; grant: string; expires_at?: string };
}

/** A server's view before its state: what the configuration says of it apart from the agent. */
interface ListedServer extends ServerView {
  configured?: ServerStateInputs["configured"];
}

/**
 * GET/PUT/DELETE /api/mcp/servers: the `mcpServers` section of extensions_config.json, plus plugin
 * servers (read-only). As a user (role `user`): PUT and DELETE write their own remote servers
 * (`users.<id>.mcpServers`, never stdio: 403), listed to them alone as `~<name>`; GET lists the
 * shared servers and theirs, each with the caller's own sign-in state.
 */
const mcpRoutes: RoutePlugin = async (app, { config, deps }) => {
  // Snapshots are immutable, so the masked views of one can be kept until the file changes.
  const configuredViews = new WeakMap<ExtensionsSnapshot, ServerView[]>();
  const listAll = async (snapshot: ExtensionsSnapshot, user: string): Promise<ServerView[]> => {
    let configured = configuredViews.get(snapshot);
    if (!configured) {
      configured = Object.entries(snapshot.document.mcpServers).map(([name, entry]) => view(name, "config", entry as Readonly<Record<string, unknown>>));
      configuredViews.set(snapshot, configured);
    }
    const [fromPlugins, report] = await Promise.all([deps.listPluginServers?.() ?? [], liveReport()]);
    const views: ListedServer[] = [...configured, ...fromPlugins.map((server) => ({
      ...view(server.name, `plugin:${server.plugin}`, server.entry, server.enabled),
      ...(server.status ? { configured: { status: server.status as "available", ...(server.reason ? { reason: server.reason } : {}) } } : {}),
    }))];
    const own = user === operatorId ? {} : userServerEntries(snapshot.document.users, user);
    views.push(...Object.entries(own).map(([name, entry]) => view(name, "user", entry as Readonly<Record<string, unknown>>)));
    // A stdio entry written by hand into a user's section: never started for them, shown to them as denied.
    const refused = user === operatorId ? {} : refusedUserServerEntries(snapshot.document.users, user);
    views.push(...Object.entries(refused).map(([name, entry]) => ({ ...view(name, "user", entry as Readonly<Record<string, unknown>>), configured: { status: "denied" as const, reason: userStdioRefusal } })));
    const entries: Record<string, unknown> = { ...Object.fromEntries(fromPlugins.map((server) => [server.name, server.entry])), ...snapshot.document.mcpServers, ...own };
    const sandboxed = await sandboxedAvailability(configured);
    return views.map(({ configured: fromConfig, ...server }) => {
      // A configured stdio server marked sandbox: true where the sandbox runs none: unavailable whatever runs.
      const blocked = server.source === "config" && server.transport === "stdio" && server.config.sandbox === true && sandboxed && !sandboxed.ok;
      const signedIn = withAuth(server, entries[server.name], user);
      const state = serverStateView({
        enabled: server.enabled,
        ...(blocked ? { configured: { status: "unavailable", reason: sandboxed.reason } } : fromConfig ? { configured: fromConfig } : {}),
        ...(signedIn.status === "needs_auth" ? { signIn: { needsAuth: true, ...(signedIn.reason ? { reason: signedIn.reason } : {}) } } : {}),
        live: report ? liveServerState(report, server.name, user) : undefined,
      });
      return { ...server, ...(signedIn.auth ? { auth: signedIn.auth } : {}), ...state };
    });
  };
  // The agents' records (local files): a stopped agent costs nothing, its servers are `unknown` with the reason.
  const liveReport = async (): Promise<McpStatusReport | undefined> => {
    try {
      return await deps.mcpStatus?.();
    } catch (error) {
      deps.logger.warn({ err: String(error) }, "the agents' MCP status records cannot be read");
      return undefined;
    }
  };
  // A configured stdio server marked sandbox: true runs only where the agent's sandbox backend runs servers (plugin servers carry it already).
  const sandboxedAvailability = async (configured: readonly ListedServer[]) => {
    if (!deps.sandbox || !configured.some((server) => server.transport === "stdio" && server.config.sandbox === true)) return undefined;
    return deps.sandbox.stdioServers();
  };
  // Sign-in state comes from the token store (the agent notes there when a server asks for sign-in): the caller's own
  // tokens, except a client_credentials server's, which are the service's.
  const withAuth = (server: ServerView, entry: unknown, user: string): ServerView => {
    if (!deps.mcpOAuth || (server.transport !== "http" && server.transport !== "sse") || !entry) return server;
    const shared = ((entry as McpServerEntry).oauth as { grant?: unknown } | undefined)?.grant === "client_credentials";
    let status: OAuthStatus;
    try {
      status = oauthStatus(shared ? deps.mcpOAuth.store : deps.mcpOAuth.store.forUser(user), server.name, entry as McpServerEntry, config.env);
    } catch (error) {
      return { ...server, status: "needs_auth", reason: (error as Error).message };
    }
    if (!status.signed_in && !status.needs_auth && !status.url_changed) {
      // Known to sign in (the operator signed in, or it asked them to), but not by this user: they need to.
      if (shared || user === operatorId || !signsIn(server.name, entry as McpServerEntry)) return server;
      return { ...server, auth: { signed_in: false, grant: status.grant }, status: "needs_auth", reason: "not signed in (each user signs in to this server for themselves)" };
    }
    return {
      ...server,
      auth: { signed_in: status.signed_in, grant: status.grant, ...(status.expires_at ? { expires_at: status.expires_at } : {}) },
      ...(status.needs_auth ? { status: "needs_auth", reason: status.needs_auth.reason } : {}),
    };
  };

  const signsIn = (name: string, entry: McpServerEntry): boolean => {
    try {
      const operator = oauthStatus((deps.mcpOAuth as { store: OAuthTokenStore }).store, name, entry, config.env);
      return operator.signed_in || operator.needs_auth !== undefined;
    } catch {
      return false;
    }
  };

  app.get(
    "/api/mcp/servers",
    {
      config: { access: "public" },
      schema: {
        summary: "List configured and plugin-provided MCP servers, and the caller's own, each with its live state (secrets masked)",
        tags: ["mcp"],
        response: { 200: { type: "object", required: ["servers"], properties: { servers: { type: "array", items: serverViewSchema } } }, ...errorResponses(500) },
      },
    },
    async (request, reply) => {
      const snapshot = await deps.store.read();
      reply.header("etag", snapshot.etag);
      // Each caller's own servers and sign-ins: a cache keeps callers apart.
      reply.header("vary", "Authorization, X-API-Key");
      return { servers: await listAll(snapshot, userOf(request)) };
    },
  );

  app.get<{ Params: { name: string } }>(
    "/api/mcp/servers/:name",
    {
      config: { access: "public" },
      schema: {
        summary: "One MCP server with its live state (secrets masked)",
        tags: ["mcp"],
        params: nameParams("^[^/]{1,256}$"),
        response: { 200: serverViewSchema, ...errorResponses(400, 404, 500) },
      },
    },
    async (request, reply) => {
      const snapshot = await deps.store.read();
      reply.header("etag", snapshot.etag);
      reply.header("vary", "Authorization, X-API-Key");
      const found = (await listAll(snapshot, userOf(request))).find((server) => server.name === request.params.name);
      if (!found) throw notFound(request.params.name);
      return found;
    },
  );

  app.get<{ Params: { name: string } }>(
    "/api/mcp/servers/:name/tools",
    {
      config: { access: "public" },
      schema: {
        summary: "One MCP server's tools, as the agent last listed them (the tool-list cache; names, descriptions and input schemas as the server gave them)",
        description: "A shared server's list is cached when the agent connects it (mcp.catalog_dir); a user's own server (~<name>) is not cached: its list is empty with a note.",
        tags: ["mcp"],
        params: nameParams("^[^/]{1,256}$"),
        response: {
          200: {
            type: "object",
            required: ["server", "tools"],
            properties: {
              server: { type: "string" },
              tools: { type: "array", items: { type: "object", required: ["name"], additionalProperties: true, properties: { name: { type: "string" }, title: { type: "string" }, description: { type: "string" }, inputSchema: { type: "object", additionalProperties: true } } } },
              fetched_at: { type: "string", description: "When the agent listed them" },
              note: { type: "string", description: "Why there is no list" },
            },
          },
          ...errorResponses(400, 404, 500),
        },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const user = userOf(request);
      reply.header("vary", "Authorization, X-API-Key");
      const { document } = await deps.store.read();
      if (name.startsWith(userServerPrefix)) {
        // Seen by its owner alone; their sessions never write the shared cache.
        if (user === operatorId || !Object.hasOwn(userServerEntries(document.users, user), name)) throw notFound(name);
        return { server: name, tools: [], note: "a server of your own is not cached: the agent lists its tools when it connects it for you (see tool_count)" };
      }
      const shared = Object.hasOwn(document.mcpServers, name) || ((await deps.listPluginServers?.()) ?? []).some((server) => server.name === name);
      if (!shared) throw notFound(name);
      const cached = readCachedToolList(config.mcp.catalog_dir, name);
      if (!cached) return { server: name, tools: [], note: "not listed yet: the agent lists a server's tools when it first connects it" };
      return { server: name, tools: cached.tools, ...(cached.fetchedAt ? { fetched_at: cached.fetchedAt } : {}) };
    },
  );

  app.put<{ Params: { name: string }; Body: McpServerEntry; Headers: { "if-match"?: string; "if-none-match"?: string } }>(
    "/api/mcp/servers/:name",
    {
      config: { access: "user", audit: "mcp.server.put" },
      schema: {
        summary: "Create or replace one MCP server entry",
        description: "Placeholders (`$VAR`, `${VAR}`) are stored as written and resolved only when the agent connects. Answers 201 when created, 200 when replaced.",
        tags: ["mcp"],
        params: nameParams(configNamePattern),
        headers: preconditionHeaders,
        body: mcpServerEntrySchema,
        response: { 200: serverViewSchema, 201: serverViewSchema, ...errorResponses(400, 401, 412, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      // A stdio server runs a program on the host: an administrator's decision. Users add remote servers.
      const transport = transportOf(request.body as Readonly<Record<string, unknown>>);
      if (request.caller?.role !== "admin" && transport !== "http" && transport !== "sse") {
        throw new ThinktankError("FORBIDDEN", "a stdio server runs a program on the gateway's host, an administrator's decision: add a remote server (type http or sse, with a url)", { details: { fields: ["type", "command"] } });
      }
      const createOnly = request.headers["if-none-match"]?.trim() === "*";
      const own = ownName(request, name);
      if (own !== undefined) {
        // A user's own server: under their section, seen by them alone as ~<name>.
        const user = userOf(request);
        const { snapshot, result: existed } = await deps.store.update(
          (draft) => {
            const servers = ownServers(draft, user, true) as Record<string, McpServerEntry>;
            const existed = Object.hasOwn(servers, own);
            if (existed && createOnly) throw new ThinktankError("PRECONDITION_FAILED", `MCP server '${userServerName(own)}' already exists (If-None-Match: *)`);
            servers[own] = request.body;
            return existed;
          },
          { ifMatch: request.headers["if-match"] },
        );
        request.log.info({ server: userServerName(own), user, revision: snapshot.revision }, existed ? "user's MCP server replaced" : "user's MCP server created");
        setEtag(reply, snapshot);
        const stored = snapshot.document.users?.[user]?.mcpServers?.[own] as Readonly<Record<string, unknown>>;
        return reply.status(existed ? 200 : 201).send(view(userServerName(own), "user", stored));
      }
      const { snapshot, result: existed } = await deps.store.update(
        (draft) => {
          const existed = Object.hasOwn(draft.mcpServers, name);
          if (existed && createOnly) throw new ThinktankError("PRECONDITION_FAILED", `MCP server '${name}' already exists (If-None-Match: *)`);
          draft.mcpServers[name] = request.body;
          return existed;
        },
        { ifMatch: request.headers["if-match"] },
      );
      request.log.info({ server: name, revision: snapshot.revision }, existed ? "MCP server replaced" : "MCP server created");
      setEtag(reply, snapshot);
      const stored = snapshot.document.mcpServers[name] as Readonly<Record<string, unknown>>;
      return reply.status(existed ? 200 : 201).send(view(name, "config", stored));
    },
  );

  app.delete<{ Params: { name: string }; Headers: { "if-match"?: string } }>(
    "/api/mcp/servers/:name",
    {
      config: { access: "user", audit: "mcp.server.delete" },
      schema: {
        summary: "Remove one MCP server entry",
        tags: ["mcp"],
        params: nameParams(configNamePattern),
        headers: preconditionHeaders,
        response: { 204: { type: "null", description: "Removed" }, ...errorResponses(400, 401, 404, 412, 500, 503) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const own = ownName(request, name);
      const user = userOf(request);
      const { snapshot } = await deps.store.update(
        (draft) => {
          if (own !== undefined) {
            // Only the caller's own server: a user never removes a shared one.
            const servers = ownServers(draft, user, false);
            if (!servers || !Object.hasOwn(servers, own)) throw notFound(userServerName(own));
            delete servers[own];
            if (Object.keys(servers).length === 0) delete draft.users?.[user]?.mcpServers;
            return;
          }
          if (!Object.hasOwn(draft.mcpServers, name)) throw notFound(name);
          delete draft.mcpServers[name];
        },
        { ifMatch: request.headers["if-match"] },
      );
      request.log.info({ server: name, revision: snapshot.revision }, "MCP server removed");
      setEtag(reply, snapshot);
      return reply.status(204).send();
    },
  );
};

/** Who the routes act for: the caller, else (a key-less service, an anonymous read) the operator. */
function userOf(request: FastifyRequest): string {
  return request.caller?.id ?? operatorId;
}

/**
 * The name of the caller's own server a PUT or DELETE is for (without `~`), or undefined when it
 * is for a shared one (an administrator's call). A user always writes their own; an administrator
 * writes the shared section, and may not name a `~` server (VALIDATION_FAILED).
 */
function ownName(request: FastifyRequest, name: string): string | undefined {
  const bare = name.startsWith(userServerPrefix) ? name.slice(userServerPrefix.length) : name;
  if (request.caller === undefined || request.caller.role === "admin") {
    if (bare !== name) throw new ThinktankError("VALIDATION_FAILED", `'${name}': ${userServerPrefix}<name> is a user's own server; an administrator writes the shared servers (no ${userServerPrefix})`, { details: { name } });
    return undefined;
  }
  return bare;
}

/** The `users` section of an extensions_config.json draft, as far as servers go. */
interface UsersDraft {
  users?: Record<string, { mcpServers?: Record<string, McpServerEntry>; [key: string]: unknown }>;
}

/** A user's `mcpServers` in a draft (made when `create`), or undefined. */
function ownServers(draft: UsersDraft, user: string, create: boolean): Record<string, McpServerEntry> | undefined {
  if (!create) return draft.users?.[user]?.mcpServers;
  draft.users ??= {};
  const record = (draft.users[user] ??= {});
  return (record.mcpServers ??= {});
}

function view(name: string, source: string, entry: Readonly<Record<string, unknown>>, enabled?: boolean): ServerView {
  return {
    name,
    source,
    transport: transportOf(entry),
    enabled: enabled ?? entry.enabled !== false,
    config: maskServerEntry(entry),
  };
}

function transportOf(entry: Readonly<Record<string, unknown>>): ServerView["transport"] {
  const type = typeof entry.type === "string" ? entry.type.trim().toLowerCase() : "";
  if (type === "") return entry.command === undefined && entry.url !== undefined ? "http" : "stdio";
  if (type === "stdio" || type === "sse" || type === "http") return type;
  return ["streamable-http", "streamablehttp", "streamable_http"].includes(type) ? "http" : "unknown";
}

function notFound(name: string): ThinktankError {
  return new ThinktankError("MCP_SERVER_NOT_FOUND", `no MCP server named '${name}' in extensions_config.json`, { details: { name } });
}

function setEtag(reply: FastifyReply, snapshot: ExtensionsSnapshot): void {
  reply.header("etag", snapshot.etag);
}

export default mcpRoutes;
