import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { CodeMode } from "../code-mode.js";
import type { ExecutionPlace } from "../code-mode-types.js";
import { createCodeModeMcpServer } from "./create-code-mode-mcp-server.js";
import { ModernMcpLeg, statelessSessionId } from "./modern-mcp-leg.js";
import { checkSessionIdPrefix } from "./session-id-prefix.js";

export interface CodeModeMcpEndpointOptions {
  readonly codeMode: CodeMode;
  /** Where a session's programs run. @default the workspace of thread `mcp-<session id>`, for the session's caller (`userId`) */
  readonly placeFor?: (sessionId: string, caller?: string) => ExecutionPlace;
  /** Sessions kept at once; the least recently used is closed to make room. @default 64 */
  readonly maxSessions?: number;
  /** A session unused this long is closed. @default 1,800,000 ms (30 minutes) */
  readonly idleMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Runs before each request, with its caller's id (the runtime re-reads the server entries here, the caller's own included). */
  readonly beforeRequest?: (caller?: string) => Promise<void>;
  /**
   * Starts every session id this endpoint makes (`<prefix>.<uuid>`): with several agent servers
   * behind one proxy, the proxy sends a session's requests to the server holding it by this prefix
   * (deploy/scale/nginx.conf). Letters, digits, `-` and `_`. @default none (a bare uuid)
   */
  readonly sessionIdPrefix?: string;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Who opened it (a caller's id; undefined without callers): only they may use it. */
  readonly caller: string | undefined;
  lastUsed: number;
}

/**
 * The streamable HTTP side of the MCP endpoint, in both protocol eras. 2025 (initialize): one v1
 * SDK transport and McpServer per session (created by an initialize request, named by the
 * `mcp-session-id` header, ended by DELETE or after being idle). 2026-07-28 (a request carrying
 * the per-request envelope, `server/discover` first): stateless, answered by ModernMcpLeg on the
 * v2 SDK, each caller's programs in a workspace of their own (`mcp-stateless-<hash>`). Framework-free: `handle(request, response, parsedBody, caller)` takes Node's
 * request and response, so Fastify (mountCodeModeEndpoint) or a plain http server can host it.
 * A session belongs to the caller who opened it: its programs run for them (ExecutionPlace.userId),
 * and another caller naming its id is answered as for an unknown session.
 */
export class CodeModeMcpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly modern: ModernMcpLeg;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly options: CodeModeMcpEndpointOptions) {
    this.now = options.now ?? Date.now;
    this.modern = new ModernMcpLeg({
      codeMode: options.codeMode,
      placeFor: (caller) => this.placeFor(statelessSessionId(caller), caller),
      ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
    });
    checkSessionIdPrefix(options.sessionIdPrefix);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** `caller`: the id of who sends the request (the agent server's callers), undefined where there are none. */
  async handle(request: IncomingMessage, response: ServerResponse, body?: unknown, caller?: string): Promise<void> {
    await this.closeIdle();
    await this.options.beforeRequest?.(caller);
    if (this.closed) return reject(response, 503, -32000, "the MCP endpoint is shutting down");
    const header = request.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId === undefined && (await this.modern.isModern(request, body))) return this.modern.handle(request, response, body, caller);
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || session.caller !== caller) return reject(response, 404, -32001, "Session not found: start a new one with an initialize request");
      session.lastUsed = this.now();
      return session.transport.handleRequest(request, response, body);
    }
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return reject(response, 400, -32000, "Bad Request: no mcp-session-id header; the first request of a session must be initialize");
    }
    await this.makeRoom();
    const id = this.options.sessionIdPrefix ? `${this.options.sessionIdPrefix}.${crypto.randomUUID()}` : crypto.randomUUID();
    const place = this.placeFor(id, caller);
    const server = createCodeModeMcpServer(this.options.codeMode, { place, ...(this.options.serverInfo ? { serverInfo: this.options.serverInfo } : {}) });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (initialized) => void this.sessions.set(initialized, { transport, server, caller, lastUsed: this.now() }),
      onsessionclosed: (closed) => void this.sessions.delete(closed),
    });
    transport.onclose = () => void this.sessions.delete(id);
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  private placeFor(id: string, caller: string | undefined): ExecutionPlace {
    return this.options.placeFor?.(id, caller) ?? { threadId: `mcp-${id}`, ...(caller === undefined ? {} : { userId: caller }) };
  }

  /** Closes every session. */
  async close(): Promise<void> {
    this.closed = true;
    await this.modern.close().catch(() => undefined);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.server.close()));
  }

  private async closeIdle(): Promise<void> {
    const limit = this.now() - (this.options.idleMs ?? 30 * 60_000);
    const idle = [...this.sessions].filter(([, session]) => session.lastUsed < limit);
    for (const [id] of idle) this.sessions.delete(id);
    await Promise.allSettled(idle.map(([, session]) => session.server.close()));
  }

  private async makeRoom(): Promise<void> {
    const max = this.options.maxSessions ?? 64;
    while (this.sessions.size >= max) {
      const [oldestId, oldest] = [...this.sessions].reduce((a, b) => (b[1].lastUsed < a[1].lastUsed ? b : a));
      this.sessions.delete(oldestId);
      await oldest.server.close().catch(() => undefined);
    }
  }
}

function reject(response: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}
