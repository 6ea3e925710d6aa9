import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from "@modelcontextprotocol/server";
import type { CodeMode } from "../code-mode.js";
import type { ExecutionPlace } from "../code-mode-types.js";
import { createModernCodeModeMcpServer } from "./create-code-mode-mcp-server.js";

export interface ModernMcpLegOptions {
  readonly codeMode: CodeMode;
  /** Where a caller's programs run: a workspace of its own per caller (there is no session in this era). */
  readonly placeFor: (caller: string | undefined) => ExecutionPlace;
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

/**
 * The /mcp endpoint's 2026-07-28 side, on `@modelcontextprotocol/server` (v2): `createMcpHandler`
 * in its strict mode (`legacy: "reject"`), a fresh server per request, the caller passed through as
 * the request's auth info. The 2025 era stays on the session-per-client v1 transport
 * (CodeModeMcpEndpoint); `isModern` routes with the SDK's own classifier, so the two never
 * disagree on which era a request is.
 */
export class ModernMcpLeg {
  private readonly handler: McpHttpHandler;

  constructor(options: ModernMcpLegOptions) {
    this.handler = createMcpHandler(
      (context) => {
        const caller = (context.authInfo?.extra as { caller?: string } | undefined)?.caller;
        return createModernCodeModeMcpServer(options.codeMode, { place: options.placeFor(caller), ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}) });
      },
      { legacy: "reject" },
    );
  }

  /** Whether the request is of the 2026-07-28 era (it carries the per-request envelope), by the SDK's classifier. */
  async isModern(request: IncomingMessage, body: unknown): Promise<boolean> {
    if (request.method !== "POST" || body === undefined) return false;
    return !(await isLegacyRequest(webRequest(request), body));
  }

  /** Answers one 2026-07-28 request for `caller`, writing the SDK's response to Node's. */
  async handle(request: IncomingMessage, response: ServerResponse, body: unknown, caller: string | undefined): Promise<void> {
    const answer = await this.handler.fetch(webRequest(request), { parsedBody: body, authInfo: { token: "", clientId: caller ?? "", scopes: [], extra: { caller } } });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void response.end();
    for await (const chunk of answer.body) {
      if (response.destroyed) break;
      response.write(chunk);
    }
    response.end();
  }

  close(): Promise<void> {
    return this.handler.close();
  }
}

/** The one workspace a caller's 2026-07-28 programs share: `mcp-stateless-<hash of the caller>`. */
export function statelessSessionId(caller: string | undefined): string {
  return `stateless-${createHash("sha256")
    .update(caller ?? "")
    .digest("hex")
    .slice(0, 16)}`;
}

/** Node's request as a web Request without its body (the body is passed parsed). */
function webRequest(request: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) headers.append(name, each);
  }
  return new Request(`http://${request.headers.host ?? "localhost"}${request.url ?? "/mcp"}`, { method: request.method ?? "POST", headers });
}
