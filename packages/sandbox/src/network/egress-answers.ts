/** How the egress proxy answers a program on its own behalf, and how it opens a connection to a checked address. */
import http from "node:http";
import net from "node:net";
import type { Socket } from "node:net";

/** The proxy's refusals and failures: status, a one-line reason (the body), and the Proxy-Status error (RFC 9209). */
export interface ProxyAnswer {
  readonly status: number;
  readonly reason: string;
  readonly proxyStatus: string;
}

/** Header-safe text: printable ASCII only, at most 300 characters. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "'").slice(0, 300);
}

function answerHeaders(answer: ProxyAnswer, body: string): Record<string, string | number> {
  return {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "proxy-status": `thinktank; error=${answer.proxyStatus}; details="${headerText(answer.reason)}"`,
    ...(answer.status === 407 ? { "proxy-authenticate": 'Basic realm="thinktank"' } : {}),
  };
}

/** Answers a plain HTTP request; the client's connection stays usable for its next request. */
export function answerRequest(response: http.ServerResponse, answer: ProxyAnswer): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = `${answer.reason}\n`;
  response.writeHead(answer.status, answerHeaders(answer, body));
  response.end(body);
}

/** Answers a CONNECT on the raw socket and closes it. */
export function answerConnect(socket: Socket, answer: ProxyAnswer): void {
  const body = `${answer.reason}\n`;
  const headers = Object.entries({ ...answerHeaders(answer, body), connection: "close" }).map(([name, value]) => `${name}: ${value}\r\n`);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status] ?? "Error"}\r\n${headers.join("")}\r\n${body}`);
}

/**
 * Opens a TCP connection to the first of `addresses` that answers, within `timeoutMs` for all of
 * them together. Only these addresses are used: no name is resolved here.
 */
export function connectFirst(addresses: readonly string[], port: number, timeoutMs: number): Promise<{ ok: true; socket: Socket; address: string } | { ok: false; problem: string; timedOut: boolean; address: string | undefined }> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve) => {
    let lastProblem = "no address to connect to";
    let timedOut = false;
    const attempt = (index: number): void => {
      const address = addresses[index];
      const remaining = deadline - Date.now();
      if (address === undefined || remaining <= 0) {
        resolve({ ok: false, problem: remaining <= 0 ? `no connection within ${timeoutMs} ms` : lastProblem, timedOut: timedOut || remaining <= 0, address: addresses[index - 1] });
        return;
      }
      // No Nagle delay: a request's head and body, or a tunnel's small records, go out at once.
      const socket = net.connect({ host: address, port, allowHalfOpen: true, noDelay: true });
      const timer = setTimeout(() => {
        timedOut = true;
        lastProblem = `no connection within ${timeoutMs} ms`;
        socket.destroy();
        attempt(index + 1);
      }, remaining);
      socket.once("connect", () => {
        clearTimeout(timer);
        // The caller adds its own handlers; until then an error must not go unhandled.
        socket.removeAllListeners("error");
        socket.on("error", () => undefined);
        resolve({ ok: true, socket, address });
      });
      socket.once("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        lastProblem = error.code ?? error.message;
        socket.destroy();
        attempt(index + 1);
      });
    };
    attempt(0);
  });
}

/** The Proxy-Status error for a failed connect. */
export function connectFailure(problem: string, timedOut: boolean): string {
  if (timedOut) return "connection_timeout";
  return problem === "ECONNREFUSED" ? "connection_refused" : "destination_unavailable";
}
