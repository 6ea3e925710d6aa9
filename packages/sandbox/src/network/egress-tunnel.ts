import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { answerConnect, connectFailure, connectFirst } from "./egress-answers.js";
import type { ConnectionTrace, EgressSession } from "./egress-session.js";
import type { TargetDecision } from "./egress-target.js";

/** What the CONNECT and plain HTTP handlers share. */
export interface EgressContext {
  check(session: EgressSession, host: string, port: number): Promise<TargetDecision>;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** A refusal to answer the program with (a proxy status and the reason), or the upstream socket. */
export type AdmittedTarget = { ok: true; socket: Socket; host: string } | { ok: false; status: number; reason: string; proxyStatus: string };

/**
 * The steps CONNECT and plain HTTP share once a request is read: the run's connection limit, the
 * target check (allowlist, then every resolved address), and a connection to a checked address.
 * Records host, address and outcome on the trace; the caller answers a refusal its own way.
 */
export async function connectAdmitted(context: EgressContext, session: EgressSession, trace: ConnectionTrace, admitted: boolean, host: string, port: number): Promise<AdmittedTarget> {
  if (!admitted) return { ok: false, status: 429, reason: `this run already has ${session.maxConnections} connections open through the proxy, the most it may`, proxyStatus: "http_request_denied" };
  const decision = await context.check(session, host, port);
  trace.host = decision.host;
  if (!decision.ok) {
    trace.address = decision.address;
    return { ok: false, status: decision.status, reason: decision.reason, proxyStatus: decision.proxyStatus };
  }
  const connected = await connectFirst(decision.addresses, port, context.connectTimeoutMs);
  trace.address = connected.address;
  if (!connected.ok) return { ok: false, status: 502, reason: `${decision.host}:${port} could not be reached: ${connected.problem}`, proxyStatus: connectFailure(connected.problem, connected.timedOut) };
  session.track(connected.socket);
  trace.allowed = true;
  trace.reason = decision.reason;
  return { ok: true, socket: connected.socket, host: decision.host };
}

/** `host:port` or `[v6]:port`, as CONNECT must name its target (RFC 9110 authority-form). */
const authorityForm = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/?#@]+):(\d{1,5})$/;

/**
 * `CONNECT host:port`: checks the target, connects to an address it checked, answers 200 and then
 * relays bytes both ways (TLS stays end to end: the proxy never sees inside) until either side
 * closes or nothing moves for the idle timeout.
 */
export async function openTunnel(context: EgressContext, session: EgressSession, request: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
  // Bytes the program sends before the answer (an eager TLS hello) wait in the socket.
  client.pause();
  client.on("error", () => undefined);
  const target = authorityForm.exec(request.url ?? "");
  const port = Number(target?.[2] ?? 0);
  const host = target?.[1] ?? (request.url ?? "").slice(0, 255);
  const { trace, admitted } = session.begin("connect", host, port);
  const refuse = (status: number, reason: string, proxyStatus: string): void => {
    trace.status = status;
    trace.reason = reason;
    trace.finish();
    answerConnect(client, { status, reason, proxyStatus });
  };
  if (!session.authorized(request.headers["proxy-authorization"])) return refuse(407, "proxy authentication required", "http_request_denied");
  if (!target || port < 1 || port > 65535) return refuse(400, `CONNECT needs host:port (authority-form), got ${JSON.stringify(host)}`, "http_request_error");
  const admittedTarget = await connectAdmitted(context, session, trace, admitted, target[1] as string, port);
  if (!admittedTarget.ok) return refuse(admittedTarget.status, admittedTarget.reason, admittedTarget.proxyStatus);
  const upstream = admittedTarget.socket;
  trace.status = 200;
  if (client.destroyed) {
    upstream.destroy();
    trace.finish();
    return;
  }
  const close = (): void => {
    client.destroy();
    upstream.destroy();
    trace.finish();
  };
  client.on("close", close);
  upstream.on("error", close).on("close", close);
  for (const socket of [client, upstream]) {
    socket.setTimeout(context.idleTimeoutMs, close);
  }
  client.on("data", (chunk: Buffer) => (trace.bytesSent += chunk.length));
  upstream.on("data", (chunk: Buffer) => (trace.bytesReceived += chunk.length));
  client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
  if (head.length > 0) {
    trace.bytesSent += head.length;
    upstream.write(head);
  }
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}
