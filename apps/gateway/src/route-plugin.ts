import type { Config } from "@thinktank/core";
import type { Identity } from "@thinktank/identity";
import type { FastifyPluginAsync } from "fastify";
import type { GatewayDeps } from "./gateway-deps.js";

/** What build-app.ts passes every route module. */
export interface RouteContext {
  readonly config: Config;
  readonly deps: GatewayDeps;
  /** Users, keys and the audit log (deps.identity, or the one the app opened from config). */
  readonly identity: () => Identity;
}

/** A route module: routes/<area>.ts default-exports one of these (a Fastify plugin). */
export type RoutePlugin = FastifyPluginAsync<RouteContext>;

/** One registered route, as `app.routeTable` lists it (for tests and tooling). */
export interface RouteSummary {
  readonly method: string;
  readonly url: string;
  /** Left out of the OpenAPI document (the docs UI's own routes). */
  readonly hidden: boolean;
}
