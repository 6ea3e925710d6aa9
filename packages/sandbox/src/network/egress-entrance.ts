import crypto from "node:crypto";
import net from "node:net";
import { limitSocketAccess } from "../host/socket-access.js";

/**
 * Where a worker's program reaches the egress proxy, bound when the worker starts (a warm worker's
 * sandbox is fixed by then) and pointed at its run's proxy session on claim; until then, and after
 * `close()`, every connection is dropped. Two kinds:
 * - a Unix socket in the worker's folder, for bubblewrap: only that sandbox sees it (through its
 *   forwarder on the sandbox's own loopback), so it needs no secret;
 * - a TCP listener on a host loopback address, for Deno (its permissions name host:port, and the
 *   process shares the host's network): any local process can connect, so the proxy asks for the
 *   worker's secret (`proxyAuthorization`, which the program has in its proxy URL).
 */
export class EgressEntrance {
  private accept: ((socket: net.Socket) => void) | undefined;
  private readonly sockets = new Set<net.Socket>();
  private closed = false;

  /**
   * The variables a run that may use the network gets: HTTP_PROXY and HTTPS_PROXY in both cases (what
   * curl, wget, pip, urllib, requests and the bootstraps' fetch read), NO_PROXY empty, and for the
   * Unix kind THINKTANK_EGRESS_SOCKET, the socket's path as the program sees it (the bootstraps' fetch
   * connects to it directly, one hop shorter than through the forwarder).
   */
  readonly env: Readonly<Record<string, string>>;

  private constructor(
    private readonly server: net.Server,
    /** The proxy URL the program is given (HTTP_PROXY, HTTPS_PROXY). */
    readonly proxyUrl: string,
    /** What the proxy must see in Proxy-Authorization (the TCP kind only). */
    readonly proxyAuthorization: string | undefined,
    /** `host:port` of the TCP kind (for Deno's --allow-net). */
    readonly address: string | undefined,
    programSocket: string | undefined,
  ) {
    server.on("connection", (socket) => this.take(socket));
    this.env = {
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      http_proxy: proxyUrl,
      https_proxy: proxyUrl,
      NO_PROXY: "",
      no_proxy: "",
      ...(programSocket ? { THINKTANK_EGRESS_SOCKET: programSocket } : {}),
    };
  }

  /** A Unix socket at `listenPath`; the program reaches it as `proxyUrl` (its forwarder's address inside the sandbox) or at `programSocket` (the socket's own path inside). */
  static async listenUnix(listenPath: string, program: { proxyUrl: string; programSocket: string }, owner?: { uid: number; gid: number }): Promise<EgressEntrance> {
    const server = net.createServer({ allowHalfOpen: true });
    await listen(server, (done) => server.listen(listenPath, done));
    server.unref();
    limitSocketAccess(listenPath, owner);
    return new EgressEntrance(server, program.proxyUrl, undefined, undefined, program.programSocket);
  }

  /**
   * A TCP listener on a loopback address of its own where the host has them (127.x.y.z on Linux, so
   * Deno's grant names no other local service's address), else on 127.0.0.1, with a fresh secret.
   */
  static async listenLoopback(): Promise<EgressEntrance> {
    const server = net.createServer({ allowHalfOpen: true, noDelay: true });
    const random = crypto.randomBytes(3);
    const candidates = process.platform === "linux" ? [`127.${(random[0] as number) % 254 + 1}.${random[1]}.${(random[2] as number) % 254 + 1}`, "127.0.0.1"] : ["127.0.0.1"];
    let host: string | undefined;
    for (const candidate of candidates) {
      try {
        await listen(server, (done) => server.listen(0, candidate, done));
        host = candidate;
        break;
      } catch {
        // that address is not configured here: the next one
      }
    }
    if (!host) throw new Error("no loopback address to listen on for the egress proxy");
    server.unref();
    const port = (server.address() as net.AddressInfo).port;
    const secret = crypto.randomBytes(18).toString("base64url");
    const authorization = `Basic ${Buffer.from(`thinktank:${secret}`).toString("base64")}`;
    return new EgressEntrance(server, `http://thinktank:${secret}@${host}:${port}`, authorization, `${host}:${port}`, undefined);
  }

  /** Hands each of the program's connections to `accept` (the run's proxy session). */
  attach(accept: (socket: net.Socket) => void): void {
    this.accept = accept;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.accept = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }

  private take(socket: net.Socket): void {
    if (!this.accept || this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    this.accept(socket);
  }
}

function listen(server: net.Server, start: (done: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => reject(error);
    server.once("error", fail);
    start(() => {
      server.off("error", fail);
      resolve();
    });
  });
}
