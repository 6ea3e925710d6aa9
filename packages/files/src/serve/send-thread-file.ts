import fs from "node:fs";
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import send from "@fastify/send";
import { ThinktankError } from "@thinktank/core";
import type { OpenedThreadFile } from "../uploads/thread-files.js";
import { servingHeaders } from "./serving-headers.js";

/** What to answer for one file: status, headers and the body stream (none for 304). */
export interface ThreadFileResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | number>;
  readonly stream?: Readable;
}

/** Where the descriptor is reachable by path on this system: the very file opened, not what a path names now. */
const descriptorPath = (fd: number) => (process.platform === "linux" ? `/proc/self/fd/${fd}` : `/dev/fd/${fd}`);

/**
 * The answer to GET of one thread file (opened by ThreadFiles.open, which refused links out):
 * @fastify/send does ETag (weak, from size and mtime), If-None-Match (304), Last-Modified and
 * single byte ranges (206; several ranges answer the whole file; none satisfiable throws
 * RANGE_NOT_SATISFIABLE with `details.contentRange` for the Content-Range header), reading through
 * the descriptor's /proc path so a file swapped meanwhile is never what is sent; servingHeaders
 * give the type and the safety headers. Closes `file.fd` once the body is read (or at once without one).
 */
export async function sendThreadFile(request: IncomingMessage, file: OpenedThreadFile): Promise<ThreadFileResponse> {
  let result: send.SendResult;
  try {
    // Reads of 1 MiB (the default 64 KiB halved the throughput of a large download; one buffer per download in flight).
    result = await send(request, descriptorPath(file.fd), { acceptRanges: true, etag: true, lastModified: true, cacheControl: false, contentType: false, dotfiles: "allow", index: false, highWaterMark: 1024 * 1024 });
  } catch (error) {
    fs.closeSync(file.fd);
    throw error;
  }
  const close = () => {
    try {
      fs.closeSync(file.fd);
    } catch {
      // closed already
    }
  };
  if (result.statusCode === 416) {
    close();
    result.stream.destroy();
    throw new ThinktankError("RANGE_NOT_SATISFIABLE", `the range is outside the file (${file.stats.size} bytes)`, { details: { contentRange: result.headers["Content-Range"] ?? `bytes */${file.stats.size}` } });
  }
  if (result.type !== "file" || result.statusCode >= 400) {
    close();
    result.stream.destroy();
    throw new ThinktankError(result.statusCode === 412 ? "PRECONDITION_FAILED" : "FILE_NOT_FOUND", result.statusCode === 412 ? "precondition failed" : `no file ${file.name}`);
  }
  const headers: Record<string, string | number> = { ...result.headers, ...servingHeaders(file.name, file.mimeType) };
  if (result.statusCode === 304) {
    close();
    result.stream.destroy();
    return { statusCode: 304, headers };
  }
  result.stream.once("close", close);
  return { statusCode: result.statusCode, headers, stream: result.stream };
}
