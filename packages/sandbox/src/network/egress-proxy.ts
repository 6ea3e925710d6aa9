import http from "node:http";
import type { Socket } from "node:net";
import { ThinktankError } from "@thinktank/core";
import { answerConnect } from "./egress-answers.js";
import { forwardRequest } from "./egress-forward.js";
import { EgressSession, type SessionHost } from "./egress-session.js";
import { checkTarget, systemResolver } from "./egress-target.js";
import { openTunnel, type EgressContext } from "./egress-tunnel.js";
import type { EgressConnection, EgressPolicy, EgressProxyOptions } from "./egress-types.js";
import { parseHostPattern, type HostPattern } from "./host-pattern.js";
import { parsePrivateAllowance, type PrivateAllowance } from "./private-allowance.js";

/**
 * The egress proxy on the host: the only way out for sandboxed programs. It listens on nothing
 * itself: each worker's entrance hands it the program's connections with the run's session, and
 * Node's HTTP server parses them. It answers `CONNECT host:port` (a tunnel: HTTPS and anything
 * else over TCP) and absolute-form plain HTTP (`GET http://host/path`), each checked against the
 * run's allowlist, resolved here, refused for non-public addresses unless config allows them, and
 * connected to the very address that was checked. Refusals are `403` with the reason in the body
 * and a `Proxy-Status` header; an unreachable target `502`; a malformed request `400`; every
 * connection, allowed or refused, is reported (`onConnection`) and kept on the run's session.
 */
export class EgressProxy {
  private readonly server: http.Server;
  private readonly sessions = new WeakMap<Socket, EgressSession>();
  private readonly allowances: readonly PrivateAllowance[];
  private readonly context: EgressContext;
  private readonly host: SessionHost;

  constructor(private readonly options: EgressProxyOptions = {}) {
    this.allowances = (options.allowedPrivate ?? []).map((entry) => {
      const parsed = parsePrivateAllowance(entry);
      if ("problem" in parsed) throw new ThinktankError("CONFIG_INVALID", `sandbox.network.${parsed.problem}`);
      return parsed;
    });
    const resolve = options.resolve ?? systemResolver;
    const resolveTimeoutMs = options.resolveTimeoutMs ?? 5_000;
    this.context = {
      check: (session, host, port) => checkTarget({ patterns: session.patterns, allowances: this.allowances, resolve, resolveTimeoutMs }, host, port),
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 120_000,
    };
    const idleTimeoutMs = this.context.idleTimeoutMs;
    this.server = http.createServer({ maxHeaderSize: options.maxHeaderBytes ?? 16_384, keepAliveTimeout: idleTimeoutMs, headersTimeout: 30_000, requestTimeout: 0 });
    this.server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
      const session = this.sessions.get(request.socket);
      if (!session) return void response.destroy();
      void forwardRequest(this.context, session, request, response).catch(() => response.destroy());
    });
    this.server.on("connect", (request: http.IncomingMessage, socket: Socket, head: Buffer) => {
      const session = this.sessions.get(socket);
      if (!session) return void socket.destroy();
      void openTunnel(this.context, session, request, socket, head).catch(() => socket.destroy());
    });
    this.server.on("upgrade", (_request: http.IncomingMessage, socket: Socket) => {
      answerConnect(socket, { status: 400, reason: "protocol upgrades are not relayed on plain HTTP: use CONNECT (wss:// and https:// clients do)", proxyStatus: "http_request_error" });
    });
    this.server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
      const session = this.sessions.get(socket);
      const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
      const reason = tooLarge ? `the request head is larger than ${options.maxHeaderBytes ?? 16_384} bytes` : `malformed request: ${error.code ?? error.message}`;
      if (session && error.code !== "ECONNRESET") {
        const { trace } = session.begin("http", "", 0);
        trace.status = tooLarge ? 431 : 400;
        trace.reason = reason;
        trace.finish();
      }
      answerConnect(socket, { status: tooLarge ? 431 : 400, reason, proxyStatus: "http_request_error" });
    });
    this.host = {
      serve: (socket, session) => {
        this.sessions.set(socket, session);
        this.server.emit("connection", socket);
      },
      report: (connection: EgressConnection) => options.onConnection?.(connection),
      reportOmitted: (policy, omitted) => options.onOmitted?.(policy, omitted),
      maxConnectionsPerRun: options.maxConnectionsPerRun ?? 32,
      maxRecordsPerRun: options.maxRecordsPerRun ?? 1000,
      now: options.now ?? (() => performance.now()),
    };
  }

  /**
   * A session for one run: hand it the program's connections (`accept`), and `end()` it when the run
   * is over. Throws VALIDATION_FAILED for a pattern that does not parse (validate requests first).
   */
  session(policy: EgressPolicy): EgressSession {
    const patterns: HostPattern[] = [];
    for (const text of policy.allow) {
      const parsed = parseHostPattern(text);
      if ("problem" in parsed) throw new ThinktankError("VALIDATION_FAILED", parsed.problem);
      patterns.push(parsed);
    }
    return new EgressSession(policy, patterns, this.host);
  }

  /** Stops taking connections; sessions end their own. */
  close(): void {
    this.server.close();
    this.server.closeAllConnections();
  }
}
