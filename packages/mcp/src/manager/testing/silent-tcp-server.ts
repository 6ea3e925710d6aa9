import net from "node:net";

export interface SilentTcpServer {
  readonly port: number;
  /** An MCP streamable HTTP URL on it (a request there is accepted and never answered). */
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

/**
 * A TCP server on 127.0.0.1 that accepts connections and never sends a byte: a remote MCP
 * server that hangs, for connect timeouts. The caller closes it.
 */
export async function startSilentTcpServer(): Promise<SilentTcpServer> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
