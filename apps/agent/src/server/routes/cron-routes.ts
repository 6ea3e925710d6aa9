import type { FastifyInstance } from "fastify";
import { ThinktankError } from "@thinktank/core";

const notImplemented = (): never => {
  throw new ThinktankError(
    "NOT_IMPLEMENTED",
    "crons are not implemented by this agent server: schedule runs from outside (cron, a systemd timer) with POST /threads/{thread_id}/runs",
  );
};

/**
 * Crons stay out (apps/agent/README.md): every route the SDK's `client.crons` calls answers 501
 * NOT_IMPLEMENTED with `{ code, message }` instead of the generic 404 for an unknown route, so a
 * client can tell "not offered here" from a typo.
 */
export function registerCronRoutes(app: FastifyInstance): void {
  const methods = ["GET", "POST", "PATCH", "DELETE"] as const;
  for (const url of ["/threads/:thread_id/runs/crons", "/runs/crons", "/runs/crons/*"]) {
    app.route({ method: [...methods], url, handler: notImplemented });
  }
}
