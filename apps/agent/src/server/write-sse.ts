import type { FastifyReply } from "fastify";
import type { RunEvent, RunEventLog } from "../runs/run-event-log.js";

/** How often an idle stream sends a comment line, so proxies keep it open and clients can detect a dead socket. */
const heartbeatMs = 15_000;

/**
 * Streams a run's events as server-sent events (`id`, `event`, `data` lines). Ends when the run's
 * log closes or the client goes away; `onDisconnect` runs when the client left before the end.
 */
export async function writeRunEvents(
  reply: FastifyReply,
  log: RunEventLog,
  options: { afterId?: string; headers?: Record<string, string>; onDisconnect?: () => void },
): Promise<void> {
  const disconnected = new AbortController();
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value as string | number | string[];
  raw.writeHead(200, { ...headers, ...options.headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
  raw.flushHeaders();
  const onClose = () => {
    if (!raw.writableFinished) disconnected.abort();
  };
  raw.on("close", onClose);
  const heartbeat = setInterval(() => raw.write(": heartbeat\n\n"), heartbeatMs);
  try {
    for await (const event of log.follow(options.afterId, disconnected.signal)) raw.write(formatEvent(event));
  } finally {
    clearInterval(heartbeat);
    raw.off("close", onClose);
    if (disconnected.signal.aborted) options.onDisconnect?.();
    raw.end();
  }
}

export function formatEvent(event: RunEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** A stream that ends at once (a run whose events are no longer kept). */
export function writeEmptyStream(reply: FastifyReply, headers: Record<string, string> = {}): void {
  reply.hijack();
  reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", ...headers });
  reply.raw.end();
}
