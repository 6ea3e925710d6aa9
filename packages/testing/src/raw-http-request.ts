import http from "node:http";

export interface RawHttpAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON (`{}` when empty). */
  readonly body: { code?: string; message?: string } & Record<string, unknown>;
}

/**
 * One request through node:http, which (unlike fetch) sends any `Host`, `Origin` or
 * `Sec-Fetch-Site` it is given: what a DNS-rebound or cross-site page makes a browser send.
 */
export function rawHttpRequest(url: string | URL, method: string, headers: Readonly<Record<string, string>>, body?: string | Buffer): Promise<RawHttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        try {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text === "" ? {} : (JSON.parse(text) as RawHttpAnswer["body"]) });
        } catch {
          reject(new Error(`${method} ${String(url)} answered ${response.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
        }
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}
