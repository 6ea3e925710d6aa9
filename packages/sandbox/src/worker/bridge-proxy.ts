import net from "node:net";
import { limitSocketAccess } from "../host/socket-access.js";

/**
 * A Unix socket inside a worker's own folder that forwards each connection to the request's bridge
 * socket. A warm worker's mounts are fixed when it starts, before anyone knows which bridge its
 * program will use: the proxy is bound into the sandbox at start and pointed at the bridge on claim.
 * Until then (and when the request has no bridge) it refuses every connection.
 */
export class BridgeProxy {
  private target: string | undefined;
  private accept: ((socket: net.Socket) => void) | undefined;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  private constructor(server: net.Server) {
    this.server = server;
  }

  static async listen(listenPath: string, owner?: { uid: number; gid: number }): Promise<BridgeProxy> {
    // Half-open: a client may end its side after the request and still read the whole response.
    const server = net.createServer({ allowHalfOpen: true });
    const proxy = new BridgeProxy(server);
    server.on("connection", (client) => proxy.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(listenPath, () => resolve());
    });
    server.unref();
    limitSocketAccess(listenPath, owner);
    return proxy;
  }

  /** Points the proxy at the bridge for this run: its socket, or `accept` to hand connections over in-process. */
  attach(target: string | undefined, accept?: (socket: net.Socket) => void): void {
    this.target = target;
    this.accept = target === undefined ? undefined : accept;
  }

  close(): void {
    this.target = undefined;
    this.accept = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }

  private forward(client: net.Socket): void {
    if (!this.target) {
      client.destroy();
      return;
    }
    if (this.accept) {
      this.accept(client);
      return;
    }
    const upstream = net.connect({ path: this.target, allowHalfOpen: true });
    this.sockets.add(client).add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
