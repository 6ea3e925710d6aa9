import { assertSafeBinding, describeHostIsolation, secureDataFolder, ThinktankError } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./build-app.js";
import type { GatewayDeps } from "./gateway-deps.js";

export interface RunningGateway {
  readonly app: FastifyInstance;
  /** e.g. http://127.0.0.1:8001 (the real port when config asked for port 0). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Checks the address is safe, tightens the data folder's modes (secureDataFolder), sweeps what
 * killed writers left beside extensions_config.json, checks it reads, says how host programs are
 * confined (a warning when they are not), then listens.
 * Without THINKTANK_API_KEY only a loopback address is accepted. A taken port is reported
 * plainly (PORT_IN_USE) with how to choose another.
 */
export async function startGateway(config: Config, deps: GatewayDeps): Promise<RunningGateway> {
  const { host, port } = config.gateway;
  assertSafeBinding(host, config.api_key);
  // Old config keys still read (plugins.stdio_servers): each says once what replaces it.
  for (const line of config.deprecations) deps.logger.warn({ deprecated: true }, line);
  const secured = secureDataFolder(config);
  if (secured.changed.length > 0) deps.logger.info({ paths: secured.changed }, "tightened the modes of the data folder and its private files (nothing in them is for other local users)");
  if (secured.problems.length > 0) deps.logger.warn({ problems: secured.problems }, "could not tighten the modes of some private files");
  const hostIsolation = await deps.hostConfinement?.detect();
  if (hostIsolation?.isolation === "none") deps.logger.warn({ reason: hostIsolation.reason, detail: hostIsolation.detail }, describeHostIsolation(hostIsolation));
  else if (hostIsolation) deps.logger.info({ isolation: hostIsolation.isolation, mechanism: hostIsolation.mechanism }, describeHostIsolation(hostIsolation));
  const swept = await deps.store.sweep();
  if (swept.removed.length > 0 || swept.kept.length > 0) {
    deps.logger.info({ removed: swept.removed, kept: swept.kept }, `extensions store: swept ${swept.removed.length} leftover(s) of killed writers (${swept.removed.join(", ") || "none"}); kept ${swept.kept.length} temp file(s) a live writer may own`);
  }
  await deps.store.read();
  const app = buildApp(config, deps);
  try {
    await app.listen({ host, port });
  } catch (error) {
    await app.close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new ThinktankError("PORT_IN_USE", `gateway: port ${port} on ${host} is already in use by another program. Stop it, or pick another port with GATEWAY_PORT=<port> or gateway.port in config.yaml.`, {
        cause: error,
        details: { host, port },
      });
    }
    throw error;
  }
  const address = app.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`;
  if (config.api_key) app.log.info({ url }, `gateway listening on ${url}; routes other than the public ones need a key or token`);
  else app.log.warn({ url }, `gateway listening on ${url} (loopback only): THINKTANK_API_KEY is not set, so any local process without credentials acts as the administrator; set it to listen on other addresses`);
  return { app, url, port: actualPort, close: () => app.close() };
}
