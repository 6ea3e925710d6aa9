import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

export type AccessLogLevel = "debug" | "info" | "warn" | "error";

export interface RequestOutcome {
  readonly status: number;
  readonly ms: number;
  /** An SSE stream: it lasts as long as its run, so its duration says nothing about the server. */
  readonly stream: boolean;
  /** The response failed after it started (Fastify passes the error). */
  readonly failed: boolean;
}

/**
 * The level of a request's access line: `error` for 5xx and failed responses, `info` for 4xx,
 * `warn` for an answer slower than `slowMs` (streams excepted), `debug` for the rest. At the
 * default level (info) a healthy server logs nothing per request.
 */
export function accessLogLevel(outcome: RequestOutcome, slowMs: number): AccessLogLevel {
  if (outcome.failed || outcome.status >= 500) return "error";
  if (outcome.status >= 400) return "info";
  if (!outcome.stream && outcome.ms > slowMs) return "warn";
  return "debug";
}

/**
 * One access line per request instead of Fastify's two at info ("incoming request", "request
 * completed"): `{ reqId, method, url, status, ms, caller?, runId? }` at the level accessLogLevel picks (URLs are masked by the logger).
 * `caller` is the id of who called (the services' auth hooks set `request.caller`; absent for an anonymous or refused request).
 * `reqId` is the request's X-Request-Id (or a new UUID); a request that created a run names it
 * (`runId`), and the run's own lines carry the same `reqId`.
 */
export class AccessLogController extends LogController {
  readonly #slowMs: number;

  constructor(options: { slowMs: number }) {
    super();
    this.#slowMs = options.slowMs;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.raw.statusCode;
    const ms = Math.round(reply.elapsedTime);
    const stream = headerOf(reply, "content-type").startsWith("text/event-stream");
    const level = accessLogLevel({ status, ms, stream, failed: Boolean(error) }, this.#slowMs);
    const runId = /\/runs\/([^/]+)$/.exec(headerOf(reply, "content-location"))?.[1];
    const caller = callerIdOf(request);
    reply.log[level]({ method: request.method, url: request.url, status, ms, ...(caller ? { caller } : {}), ...(runId ? { runId } : {}), ...(error ? { err: error } : {}) }, "request");
  }
}

/** The id of the request's caller, which the services' auth hooks decorate it with (docs/architecture.md, "Users"). */
function callerIdOf(request: FastifyRequest): string | undefined {
  const caller = (request as { caller?: { id?: unknown } }).caller;
  return typeof caller?.id === "string" ? caller.id : undefined;
}

/** A response header, set through Fastify's reply or on the raw response (streams). */
function headerOf(reply: FastifyReply, name: string): string {
  return String(reply.getHeader(name) ?? reply.raw.getHeader(name) ?? "");
}
