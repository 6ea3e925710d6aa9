import type { Writable } from "node:stream";
import { assertSafeBinding, checkDataFolders, describeHostIsolation, isThinktankError, loadConfig, type Config } from "@thinktank/core";
import { describeModelChoice } from "@thinktank/models";
import { backendLine } from "@thinktank/sandbox";
import { buildAgentServer, type AgentServer, type AgentServerDeps } from "./server/build-agent-server.js";

export interface StartAgentServerOptions {
  /** The environment (config overrides, keys). The entry point passes process.env. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where the start-up line and start-up errors go. */
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly deps?: (config: Config) => AgentServerDeps;
}

export type StartResult = { ok: true; server: AgentServer; url: string } | { ok: false; exitCode: number };

/**
 * Loads config, builds the agent server and listens on agent.host:agent.port. Refuses a
 * non-loopback host without THINKTANK_API_KEY, and says plainly which port is taken and how to
 * pick another. Never calls process.exit: the caller owns the process.
 */
export async function startAgentServer(options: StartAgentServerOptions): Promise<StartResult> {
  const fail = (message: string, exitCode = 1): StartResult => {
    options.stderr.write(`thinktank agent: ${message}\n`);
    return { ok: false, exitCode };
  };
  let config: Config;
  try {
    config = loadConfig({ env: options.env, cwd: options.cwd });
  } catch (error) {
    return fail(isThinktankError(error) ? error.message : String(error));
  }
  // Old config keys still read (plugins.stdio_servers): each says once what replaces it.
  for (const line of config.deprecations) options.stderr.write(`thinktank agent: warning: ${line}\n`);
  const { host, port } = config.agent;
  try {
    assertSafeBinding(host, config.api_key, "agent");
  } catch (error) {
    return fail(isThinktankError(error) ? error.message : String(error));
  }
  // A data folder this uid cannot write (a Docker volume owned by another uid) stops here with what to set, not with EACCES from deep inside.
  const writable = checkDataFolders(config);
  if (!writable.ok) return fail(`${writable.code}: ${writable.message}`);
  let server: AgentServer;
  try {
    server = await buildAgentServer(config, options.deps?.(config) ?? {});
  } catch (error) {
    return fail(isThinktankError(error) ? `${error.code}: ${error.message}` : String(error));
  }
  try {
    await server.app.listen({ host, port });
  } catch (error) {
    await server.close().catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      return fail(
        `port ${port} on ${host} is already taken (another agent server or another program listens there). ` +
          `Pick another port: AGENT_PORT=${port === 65535 ? port - 1 : port + 1} npm start, or agent.port in config.yaml.`,
      );
    }
    return fail(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  const address = server.app.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`;
  const auth = config.api_key ? "API key required" : "no API key: loopback only";
  options.stdout.write(`thinktank agent: listening on ${url} (graph lead_agent; threads: ${server.store.description}; ${auth})\n`);
  // Which model runs use and why (models.default, a key in the environment, or the scripted demo).
  options.stdout.write(`thinktank agent: ${describeModelChoice(config)}\n`);
  // Which backend runs execute_code and bash, and what it isolates (auto picks bubblewrap when it works, else deno).
  const sandbox = await server.runtime.codeMode.executor.describeBackend();
  options.stdout.write(`thinktank agent: ${backendLine(sandbox)}\n`);
  // bubblewrap expected (installed, as in the Docker image) or named, but refused here: loud, on stderr, with the full reason and its fix.
  if (sandbox.warning) options.stderr.write(`thinktank agent: warning: sandbox: ${sandbox.warning}. Reason: ${sandbox.problem ?? sandbox.fallback ?? "unknown"}\n`);
  // How trusted script tools and stdio MCP servers are confined on this host; a warning, once, when they are not.
  const hostIsolation = server.runtime.hostConfinement.info;
  if (hostIsolation.isolation === "none") options.stderr.write(`thinktank agent: warning: ${describeHostIsolation(hostIsolation)}${hostIsolation.detail ? ` (${hostIsolation.detail})` : ""}\n`);
  else options.stdout.write(`thinktank agent: ${describeHostIsolation(hostIsolation)}\n`);
  return { ok: true, server, url };
}
