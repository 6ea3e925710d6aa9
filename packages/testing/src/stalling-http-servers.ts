import http from "node:http";
import type { AddressInfo } from "node:net";

/** A server that accepts connections and never answers: a source that hangs. */
export interface HangingServer {
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startHangingServer(): Promise<HangingServer> {
  let connections = 0;
  const server = http.createServer(() => {
    // never answers
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return connections;
    },
    close: () => closeServer(server),
  };
}

/** A server that answers every GET with `totalBytes` of data (1 GB by default), made as it is sent: a source that is too large. */
export interface FloodServer {
  readonly url: string;
  /** Bytes written to sockets so far (the client's limit shows as how few). */
  readonly bytesSent: number;
  close(): Promise<void>;
}

export async function startFloodServer(options: { readonly totalBytes?: number; readonly declareLength?: boolean } = {}): Promise<FloodServer> {
  const total = options.totalBytes ?? 1024 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let bytesSent = 0;
  const server = http.createServer((request, response) => {
    response.writeHead(200, { "content-type": "application/json", ...(options.declareLength ? { "content-length": total } : {}) });
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        bytesSent += piece.length;
        if (!response.write(piece)) return void response.once("drain", pump);
      }
      response.end();
    };
    request.socket.on("close", () => response.destroy());
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get bytesSent() {
      return bytesSent;
    },
    close: () => closeServer(server),
  };
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
