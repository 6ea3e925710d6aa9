import http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerRequest } from "./egress-answers.js";
import type { EgressSession } from "./egress-session.js";
import { connectAdmitted, type EgressContext } from "./egress-tunnel.js";

/** Headers that belong to one hop (RFC 9110 7.6.1), and the proxy's own. */
const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);

/** Raw header pairs without hop-by-hop ones (and those `Connection` names), duplicates kept. */
function endToEndHeaders(rawHeaders: readonly string[], drop: ReadonlySet<string> = new Set()): Record<string, string | string[]> {
  const listed = new Set<string>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() === "connection") {
      for (const name of (rawHeaders[index + 1] as string).split(",")) listed.add(name.trim().toLowerCase());
    }
  }
  const headers: Record<string, string | string[]> = {};
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    const value = rawHeaders[index + 1] as string;
    if (hopByHop.has(name) || listed.has(name) || drop.has(name)) continue;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

/**
 * One absolute-form request (`GET http://host/path`): checks its target, connects to an address it
 * checked (a new connection per request, so two requests of one keep-alive connection to different
 * hosts are each checked and sent to their own host) and relays the request and the response.
 * `https://` targets and origin-form paths are refused: HTTPS goes through CONNECT.
 */
export async function forwardRequest(context: EgressContext, session: EgressSession, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(request.url ?? "");
  } catch {
    url = undefined;
  }
  const port = url?.port ? Number(url.port) : 80;
  const { trace, admitted } = session.begin("http", url?.hostname ?? (request.url ?? "").slice(0, 255), port);
  const refuse = (status: number, reason: string, proxyStatus: string): void => {
    trace.status = status;
    trace.reason = reason;
    trace.finish();
    answerRequest(response, { status, reason, proxyStatus });
  };
  if (!session.authorized(request.headers["proxy-authorization"])) return refuse(407, "proxy authentication required", "http_request_denied");
  if (!url || url.protocol !== "http:") {
    const why = url?.protocol === "https:" ? "send HTTPS through CONNECT (an HTTPS_PROXY client does)" : "this is a proxy: send absolute-form http:// URLs, or CONNECT host:port";
    return refuse(400, `${JSON.stringify((request.url ?? "").slice(0, 200))} refused: ${why}`, "http_request_error");
  }
  if (url.username !== "" || url.password !== "") return refuse(400, "credentials in the request URL are refused", "http_request_error");
  const admittedTarget = await connectAdmitted(context, session, trace, admitted, url.hostname, port);
  if (!admittedTarget.ok) return refuse(admittedTarget.status, admittedTarget.reason, admittedTarget.proxyStatus);
  const socket = admittedTarget.socket;
  socket.setTimeout(context.idleTimeoutMs, () => socket.destroy(new Error(`no data for ${context.idleTimeoutMs} ms`)));
  const headers = endToEndHeaders(request.rawHeaders, new Set(["host"]));
  headers.host = url.host;
  const upstream = http.request({ method: request.method, path: `${url.pathname}${url.search}`, headers, setHost: false, createConnection: () => socket });
  const done = (): void => {
    socket.destroy();
    trace.finish();
  };
  upstream.on("response", (answer) => {
    trace.status = answer.statusCode ?? 0;
    answer.on("data", (chunk: Buffer) => (trace.bytesReceived += chunk.length));
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.rawHeaders));
    answer.pipe(response);
    answer.on("error", () => response.destroy());
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    if (trace.status === 0) trace.status = 502;
    answerRequest(response, { status: 502, reason: `${admittedTarget.host}:${port} failed: ${error.code ?? error.message}`, proxyStatus: "destination_unavailable" });
    done();
  });
  response.on("close", done);
  request.on("data", (chunk: Buffer) => (trace.bytesSent += chunk.length));
  request.pipe(upstream);
}
