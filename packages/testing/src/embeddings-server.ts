import http from "node:http";
import type { AddressInfo } from "node:net";

/** What an `EmbeddingsServer` received: the body's model and input, and the Authorization header. */
export interface EmbeddingsRequest {
  readonly model?: string;
  readonly input?: string[];
  readonly authorization?: string;
}

/** A running stand-in for an OpenAI-compatible embeddings endpoint (the scripted model of the embeddings stage). */
export interface EmbeddingsServer {
  /** Base URL to give an embedder (`.../v1`; the endpoint is `POST .../v1/embeddings`). */
  readonly baseUrl: string;
  /** Every request so far, oldest first (tests may empty it). */
  readonly requests: EmbeddingsRequest[];
  /** The next request is answered 500. */
  failNext(): void;
  /** The next request is answered only when the returned function is called (a slow model). */
  holdNext(): () => void;
  /** Calls `listener` once, after the next answer is sent. */
  onAnswered(listener: () => void): void;
  close(): Promise<void>;
}

/**
 * Serves `POST /v1/embeddings` on 127.0.0.1 with vectors from `embed`, answered in reverse order
 * with explicit indexes (as some providers do); any other path is a 404.
 */
export async function startEmbeddingsServer(embed: (text: string) => number[]): Promise<EmbeddingsServer> {
  const requests: EmbeddingsRequest[] = [];
  let failNext = false;
  let hold: Promise<void> | undefined;
  let answered: (() => void)[] = [];
  const sent = () => {
    const listeners = answered;
    answered = [];
    for (const listener of listeners) listener();
  };
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", async () => {
      const held = hold;
      hold = undefined;
      if (held) await held;
      const parsed = JSON.parse(body) as { model?: string; input?: string[] };
      requests.push({ ...parsed, ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
      if (request.url !== "/v1/embeddings" || failNext) {
        failNext = false;
        response.writeHead(request.url === "/v1/embeddings" ? 500 : 404, { "content-type": "application/json" }).end('{"error":"boom"}', sent);
        return;
      }
      const data = (parsed.input ?? []).map((text, index) => ({ index, embedding: embed(text) })).reverse();
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }), sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    failNext: () => {
      failNext = true;
    },
    onAnswered: (listener) => {
      answered.push(listener);
    },
    holdNext: () => {
      let release = () => {};
      hold = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
