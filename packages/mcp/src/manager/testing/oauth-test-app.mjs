// A protected MCP server with its own authorization server, for tests, built from the MCP SDK's
// server auth pieces: mcpAuthRouter (metadata, /authorize, /token, /register, /revoke),
// requireBearerAuth on the MCP endpoints, and TestAuthProvider. Streamable HTTP at /mcp (stateless:
// every request checks its token), legacy SSE at /sse + /messages, and the 2026-07-28 era only at
// /mcp-2026 (the v2 SDK's @modelcontextprotocol/server, createMcpHandler refusing 2025 requests), on 127.0.0.1.
import express from "express";
import { createOAuthMetadata, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler, McpServer as ModernMcpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { TestAuthProvider } from "./oauth-test-provider.mjs";

const tools = [
  { name: "whoami", description: "The OAuth client, scopes and account of the caller's token.", inputSchema: { type: "object", properties: {} } },
  { name: "add", description: "Adds two numbers.", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
];

function mcpServer(authInfo, counters) {
  const server = new Server({ name: "thinktank-oauth-test", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    counters.toolCalls += 1;
    const args = request.params.arguments ?? {};
    if (request.params.name === "whoami") {
      const who = { client_id: authInfo?.clientId, scopes: authInfo?.scopes ?? [], ...(authInfo?.extra?.account ? { account: authInfo.extra.account } : {}) };
      return { content: [{ type: "text", text: JSON.stringify(who) }], structuredContent: who };
    }
    if (request.params.name === "add") {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    }
    return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
  });
  return server;
}

/** The same two tools on the v2 SDK, for the 2026-07-28 endpoint. */
function modernMcpServer(authInfo, counters) {
  const server = new ModernMcpServer({ name: "thinktank-oauth-test-2026", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("whoami", { description: tools[0].description }, async () => {
    counters.toolCalls += 1;
    const who = { client_id: authInfo?.clientId, scopes: authInfo?.scopes ?? [], ...(authInfo?.extra?.account ? { account: authInfo.extra.account } : {}) };
    return { content: [{ type: "text", text: JSON.stringify(who) }], structuredContent: who };
  });
  server.registerTool("add", { description: tools[1].description, inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    counters.toolCalls += 1;
    return { content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } };
  });
  return server;
}

export async function startOAuthTestApp(options = {}) {
  const app = express();
  const listener = await new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const origin = `http://127.0.0.1:${listener.address().port}`;
  const issuer = `${origin}/`;
  const scopes = options.scopes ?? ["mcp"];
  const documents = options.clientMetadataDocuments ? (options.clientMetadataDocuments === true ? {} : options.clientMetadataDocuments) : undefined;
  const provider = new TestAuthProvider({
    issuer,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    dynamicRegistration: options.dynamicRegistration !== false,
    clientMetadataDocuments: documents,
  });
  const clientSecrets = new Map(Object.entries(options.clientCredentials ?? {}));
  const counters = { toolCalls: 0, unauthorized: 0, registrationRequests: 0 };
  // Every request to /register, answered or not (a client that should not register at all).
  app.use("/register", (_req, _res, next) => {
    counters.registrationRequests += 1;
    next();
  });
  // The SDK's router has no switch for it: the same metadata, advertising client ID metadata documents.
  if (documents) {
    app.get("/.well-known/oauth-authorization-server", (_req, res) => {
      res.json({ ...createOAuthMetadata({ provider, issuerUrl: new URL(issuer), scopesSupported: scopes }), client_id_metadata_document_supported: true });
    });
  }

  // Hostile metadata: the token endpoint moved to another host name of the same machine.
  if (options.tokenEndpointHost) {
    app.get("/.well-known/oauth-authorization-server", (_req, res) => {
      res.json({
        issuer,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `http://${options.tokenEndpointHost}:${listener.address().port}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"],
      });
    });
  }
  app.get("/consent", (req, res) => {
    const target = provider.consent(String(req.query.request ?? ""), req.query.answer === "approve", typeof req.query.account === "string" ? req.query.account : undefined);
    if (!target) return res.status(400).send("unknown or answered request");
    res.redirect(302, target);
  });
  // client_credentials: the SDK's token handler leaves this grant to the application.
  app.post("/token", express.urlencoded({ extended: false }), (req, res, next) => {
    if (req.body?.grant_type !== "client_credentials") return next();
    res.setHeader("Cache-Control", "no-store");
    let { client_id: id, client_secret: secret } = req.body;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
    if (basic) [id, secret] = Buffer.from(basic[1], "base64").toString().split(":").map(decodeURIComponent);
    const expected = clientSecrets.get(id ?? "");
    if (expected === undefined || secret !== expected) {
      return res.status(401).json({ error: "invalid_client", error_description: "unknown client or wrong secret" });
    }
    res.json(provider.clientCredentials(id, req.body.scope ? String(req.body.scope).split(" ") : scopes, req.body.resource));
  });
  const off = { rateLimit: false };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(issuer),
      resourceServerUrl: new URL(`${origin}/mcp`),
      scopesSupported: scopes,
      authorizationOptions: off,
      tokenOptions: off,
      clientRegistrationOptions: off,
      revocationOptions: off,
    }),
  );
  app.get("/.well-known/oauth-protected-resource/sse", (_req, res) => res.json({ resource: `${origin}/sse`, authorization_servers: [issuer], scopes_supported: scopes }));
  app.get("/.well-known/oauth-protected-resource/mcp-2026", (_req, res) => res.json({ resource: `${origin}/mcp-2026`, authorization_servers: [issuer], scopes_supported: scopes }));

  const required = { scopes: options.requiredScopes ?? scopes };
  const guard = (path) => (req, res, next) => {
    res.on("finish", () => {
      if (res.statusCode === 401) counters.unauthorized += 1;
    });
    // Built per request: the test may change the scopes a token needs.
    requireBearerAuth({ verifier: provider, requiredScopes: required.scopes, resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource${path}` })(req, res, next);
  };

  app.post("/mcp", guard("/mcp"), express.json(), async (req, res) => {
    const server = mcpServer(req.auth, counters);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get("/mcp", guard("/mcp"), (_req, res) => res.status(405).set("allow", "POST").end());
  app.delete("/mcp", guard("/mcp"), (_req, res) => res.status(405).set("allow", "POST").end());

  // 2026-07-28 only: a 2025 initialize is refused with -32022; the caller's token reaches the tools as authInfo.
  const modern = createMcpHandler((context) => modernMcpServer(context.authInfo, counters), { legacy: "reject" });
  app.post("/mcp-2026", guard("/mcp-2026"), express.json(), async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.append(name, Array.isArray(value) ? value.join(", ") : value);
    const answer = await modern.fetch(new Request(`${origin}${req.originalUrl}`, { method: "POST", headers }), { parsedBody: req.body, authInfo: req.auth });
    res.status(answer.status);
    answer.headers.forEach((value, name) => res.setHeader(name, value));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });

  const sessions = new Map();
  app.get("/sse", guard("/sse"), async (req, res) => {
    const transport = new SSEServerTransport("/messages", res);
    sessions.set(transport.sessionId, transport);
    res.on("close", () => sessions.delete(transport.sessionId));
    await mcpServer(req.auth, counters).connect(transport);
  });
  app.post("/messages", guard("/sse"), express.json(), async (req, res) => {
    const transport = sessions.get(String(req.query.sessionId ?? ""));
    if (!transport) return res.status(404).send("unknown session");
    await transport.handlePostMessage(req, res, req.body);
  });

  return {
    origin,
    issuer,
    mcpUrl: `${origin}/mcp`,
    sseUrl: `${origin}/sse`,
    modernMcpUrl: `${origin}/mcp-2026`,
    provider,
    counters,
    requireScopes(list) {
      required.scopes = list;
    },
    async close() {
      await modern.close();
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      listener.closeAllConnections?.();
      await new Promise((resolve) => listener.close(() => resolve(undefined)));
    },
  };
}
