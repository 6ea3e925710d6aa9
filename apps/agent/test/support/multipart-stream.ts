// Multipart bodies written by hand over node:http, for what FormData cannot do: names sent byte for
// byte, a file streamed from a generator (never held whole), a client that goes away midway.
import http from "node:http";

export interface StreamedPart {
  readonly name: string;
  /** Bytes of the file; written in chunks of `chunk` bytes (the same buffer again and again). */
  readonly size: number;
}

const boundary = "----thinktank-test-boundary-7c1f";

/** The header of one file part (the file name raw, as UTF-8 bytes). */
export function partHeader(filename: string, field = "file"): Buffer {
  return Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="`), Buffer.from(filename, "utf8"), Buffer.from(`"\r\nContent-Type: application/octet-stream\r\n\r\n`)]);
}

export const closing = Buffer.from(`--${boundary}--\r\n`);

/**
 * POSTs a multipart body: each part's header, then its bytes from a repeated chunk, awaiting
 * drain (so the client holds one chunk, whatever the size). `stopAfter` bytes of file data in all:
 * the socket is destroyed there (a client gone midway) and `aborted` resolves.
 */
export function streamUpload(url: string, key: string, parts: readonly StreamedPart[], options: { stopAfter?: number; onProgress?: (sent: number) => Promise<void> | void } = {}): Promise<{ status: number; body: string } | { aborted: true }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers: { "x-api-key": key, "content-type": `multipart/form-data; boundary=${boundary}`, "transfer-encoding": "chunked" } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (text: string) => (body += text));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    let answered = false;
    request.on("response", () => (answered = true));
    request.on("error", (error) => (answered ? undefined : options.stopAfter !== undefined ? resolve({ aborted: true }) : reject(error)));
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const write = (data: Buffer) => (request.write(data) ? Promise.resolve() : new Promise<void>((ready) => request.once("drain", () => ready())));
    void (async () => {
      let sent = 0;
      for (const part of parts) {
        await write(partHeader(part.name));
        for (let left = part.size; left > 0; ) {
          if (answered || request.destroyed) return;
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          await write(piece);
          left -= piece.length;
          sent += piece.length;
          await options.onProgress?.(sent);
          if (options.stopAfter !== undefined && sent >= options.stopAfter) {
            request.destroy();
            resolve({ aborted: true });
            return;
          }
        }
        await write(Buffer.from("\r\n"));
      }
      await write(closing);
      request.end();
    })().catch(() => undefined);
  });
}
