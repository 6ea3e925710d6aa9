import http from "node:http";

/** One request the stub received. */
export interface BridgeStubRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
}

/** A scripted answer: HTTP status and raw body text. */
export interface BridgeStubAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * A stand-in for the code-mode bridge (the protocol in docs/code-api.md) on a Unix socket: it
 * checks the bearer token, records every request and answers from a script keyed by tool name.
 * Test support only.
 */
export class BridgeStub {
  readonly requests: BridgeStubRequest[] = [];
  readonly #server: http.Server;

  constructor(private readonly options: { token: string; answers: Readonly<Record<string, BridgeStubAnswer>> }) {
    this.#server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the raw text
        }
        this.requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
        const answer = this.#answer(request, body);
        response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
      });
    });
  }

  #answer(request: http.IncomingMessage, body: unknown): BridgeStubAnswer {
    const refuse = (status: number, code: string, message: string) => ({ status, body: JSON.stringify({ ok: false, error: { code, message } }) });
    if (request.headers.authorization !== `Bearer ${this.options.token}`) return refuse(401, "UNAUTHORIZED", "bad bridge token");
    if (request.method !== "POST" || request.url !== "/call") return refuse(404, "NOT_FOUND", "no such route");
    const tool = (body as { tool?: unknown } | null)?.tool;
    const answer = typeof tool === "string" ? this.options.answers[tool] : undefined;
    return answer ?? refuse(404, "MCP_TOOL_NOT_FOUND", `no tool ${JSON.stringify(tool)}`);
  }

  listen(socketPath: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(socketPath, () => resolve());
    });
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
