import type { Config } from "@thinktank/core";
import type { Identity } from "@thinktank/identity";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { SessionAnswer, StartSessionInput } from "./session.js";

export interface OidcRouteContext {
  readonly config: Config;
  readonly identity: () => Identity;
  readonly methods: SessionAnswer["methods"];
  readonly startSession: (request: FastifyRequest, reply: FastifyReply, input: StartSessionInput) => Promise<SessionAnswer>;
}

/** OpenID sign-in routes (filled in next). */
export function registerOidcRoutes(_app: FastifyInstance, _context: OidcRouteContext): void {}
