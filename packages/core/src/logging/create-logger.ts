import { pino } from "pino";
import type { DestinationStream, Logger } from "pino";
import type { LogLevel } from "../config/config-types.js";
import { redactSecrets, redactString } from "./redact-secrets.js";
import { maskUrlSecrets } from "./secret-patterns.js";

export interface CreateLoggerOptions {
  /** @default "info" */
  readonly level?: LogLevel;
  /** Written as `name` on every line, e.g. "gateway". */
  readonly name?: string;
  /** Where lines go. @default standard output */
  readonly destination?: DestinationStream;
}

export type { Logger } from "pino";

/**
 * A pino logger that masks secrets before anything is written: values under keys such as
 * authorization, x-api-key, cookie, *token*, *secret*, *password*, api keys; credentials in
 * `Bearer ...` strings; passwords and secret query parameters in URLs (request URLs included).
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      name: options.name,
      formatters: { log: (object) => redactSecrets(object) },
      hooks: {
        // The message and its format arguments never reach `formatters.log`: mask them here.
        logMethod(args, method) {
          const masked = args.map((arg: unknown) => (typeof arg === "string" ? redactString(arg) : arg)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
      serializers: {
        err: pino.stdSerializers.err,
        req: serializeRequest,
        res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** A request (Node's or Fastify's) as a log line shows it: never its headers, its URL masked. */
function serializeRequest(request: { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string; remotePort?: number } }): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === "string" ? maskUrlSecrets(request.url) : request.url,
    remoteAddress: request.ip ?? request.socket?.remoteAddress,
    remotePort: request.socket?.remotePort,
  };
}
