import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import type { RunEvents } from "@thinktank/runs";

/** How often an idle stream sends a comment line, so proxies keep it open and clients can detect a dead socket. */
const heartbeatMs = 15_000;

/**
 * Streams a run's events as server-sent events (`id`, `event`, `data` lines). Ends when the run's
 * log closes or the client goes away; `onDisconnect` runs when the client left before the end.
 * A slow client is written to no faster than it reads (the log keeps the events meanwhile), so its
 * socket never buffers a whole run.
 */
export async function writeRunEvents(
  reply: FastifyReply,
  log: RunEvents,
  options: { afterId?: string; headers?: Record<string, string>; onDisconnect?: () => void },
): Promise<void> {
  const disconnected = new AbortController();
  reply.hijack();
  const raw = reply.raw;
  // Set one by one (not as writeHead's argument), so the access log can read them back from the response.
  const headers = { ...reply.getHeaders(), ...options.headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) raw.setHeader(name, value as string | number | string[]);
  raw.writeHead(200);
  raw.flushHeaders();
  const onClose = () => {
    if (!raw.writableFinished) disconnected.abort();
  };
  raw.on("close", onClose);
  const heartbeat = setInterval(() => raw.write(": heartbeat\n\n"), heartbeatMs);
  try {
    for await (const event of log.follow(options.afterId, disconnected.signal)) {
      if (!raw.write(event.frame)) await drained(raw, disconnected.signal);
    }
  } finally {
    clearInterval(heartbeat);
    raw.off("close", onClose);
    if (disconnected.signal.aborted) options.onDisconnect?.();
    raw.end();
  }
}

/** Resolves when the socket takes writes again, or the client is gone. */
function drained(raw: ServerResponse, disconnected: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      raw.off("drain", done);
      disconnected.removeEventListener("abort", done);
      resolve();
    };
    raw.once("drain", done);
    disconnected.addEventListener("abort", done, { once: true });
  });
}

/** A stream that ends at once (a run whose events are no longer kept). */
export function writeEmptyStream(reply: FastifyReply, headers: Record<string, string> = {}): void {
  reply.hijack();
  reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", ...headers });
  reply.raw.end();
}
