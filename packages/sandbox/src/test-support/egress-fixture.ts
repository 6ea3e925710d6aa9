// Test support (not exported): servers an egress test reaches, and clients that speak to a proxy.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";

export interface TargetServer {
  readonly port: number;
  /** TCP connections it accepted. */
  readonly connections: () => number;
  /** Requests it answered: method, path and Host. */
  readonly requests: { method: string; path: string; host: string }[];
  close(): Promise<void>;
}

/** An HTTP (or, given a key and certificate, HTTPS) server that answers `<name> <method> <path>`. */
export async function startTargetServer(name: string, host = "127.0.0.1", tls?: { key: string; cert: string }): Promise<TargetServer> {
  const requests: TargetServer["requests"] = [];
  let connections = 0;
  const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    requests.push({ method: request.method ?? "", path: request.url ?? "", host: request.headers.host ?? "" });
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      response.setHeader("x-target", name);
      response.end(`${name} ${request.method} ${request.url}${body ? ` ${body}` : ""}`);
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A TCP server that sends back what it receives. */
export async function startEchoServer(host = "127.0.0.1"): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

export interface ProxyAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** The client reused a kept-alive connection to the proxy. */
  readonly reused: boolean;
}

/** One absolute-form request through a proxy listening on 127.0.0.1:`proxyPort`. */
export function requestThroughProxy(proxyPort: number, url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {}): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const host = URL.canParse(url) ? new URL(url).host : "proxy";
    const request = http.request({ host: "127.0.0.1", port: proxyPort, method: options.method ?? "GET", path: url, headers: { host, ...options.headers }, agent: options.agent ?? false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8"), reused: request.reusedSocket }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

/** `CONNECT target` through a proxy on 127.0.0.1:`proxyPort`: the answer's status line and head, then the open socket (or the refusal's body). */
export function connectThroughProxy(proxyPort: number, target: string, headers: Record<string, string> = {}): Promise<{ status: number; head: string; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: proxyPort });
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${extra}\r\n`);
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = received.subarray(0, end).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const rest = received.subarray(end + 4);
      if (status === 200) {
        socket.off("data", onData);
        if (rest.length > 0) socket.unshift(rest);
        resolve({ status, head, body: "", socket });
        return;
      }
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (rest.length >= length) {
        socket.off("data", onData);
        resolve({ status, head, body: rest.subarray(0, length).toString("utf8"), socket });
      }
    };
    socket.on("data", onData);
    socket.on("error", reject);
  });
}

/** Sends `text` through an open tunnel to an echo server and resolves with what comes back. */
export function echoThrough(socket: net.Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const onData = (chunk: Buffer): void => {
      received += chunk.toString("utf8");
      if (received.length >= text.length) {
        socket.off("data", onData);
        resolve(received);
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(text);
  });
}

/** A self-signed certificate for `names` (DNS subject alternative names), made with openssl in `dir`. */
export function selfSignedCertificate(dir: string, names: readonly string[]): { key: string; cert: string; certFile: string } {
  const keyFile = path.join(dir, "test-key.pem");
  const certFile = path.join(dir, "test-cert.pem");
  const san = names.map((name) => `DNS:${name}`).join(",");
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", `/CN=${names[0] ?? "test"}`, "-addext", `subjectAltName=${san}`, "-addext", "basicConstraints=critical,CA:FALSE"], { stdio: "ignore" });
  return { key: fs.readFileSync(keyFile, "utf8"), cert: fs.readFileSync(certFile, "utf8"), certFile };
}
