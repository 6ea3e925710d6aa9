import type { HostConfinement, SpawnLine } from "@thinktank/core";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_INHERITED_ENV_VARS } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServerConfig } from "../servers/server-entry.js";

export interface CreateTransportOptions {
  /** A remote server's fetch (the OAuth token source's). @default the global one */
  readonly fetch?: FetchLike;
  /** Confines a stdio server on the host (its own pid namespace, the data folder hidden). */
  readonly hostConfinement: HostConfinement;
  /** A stdio server marked `sandbox: true`: the command line its sandbox launch gave, spawned instead of confining it on the host. */
  readonly sandboxed?: SpawnLine;
}

/**
 * The SDK transport for a resolved config. A stdio server starts confined on the host
 * (`hostConfinement`: the command line it gives, with its stdin and stdout passed straight through),
 * or, marked `sandbox: true`, from the command line its sandbox launch gave (`sandboxed`),
 * with exactly `config.env`: the SDK adds a few host variables of its own (USER, SHELL, ...) and
 * those are blanked out here, because Node leaves variables whose value is undefined out of the
 * child's environment. A command that is not found fails to start as a spawn would (ENOENT). A
 * remote server's requests go through `fetch` when given (the OAuth token source adds its bearer
 * token there).
 */
export function createTransport(config: ResolvedServerConfig, options: CreateTransportOptions): Transport {
  const fetchOption = options.fetch ? { fetch: options.fetch } : {};
  switch (config.transport) {
    case "stdio": {
      const params = stdioSpawnParams(config, options);
      return params instanceof Error ? new UnstartableTransport(params) : new StdioClientTransport(params);
    }
    case "sse":
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } }, ...fetchOption });
    case "http":
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } }, ...fetchOption });
  }
}

/**
 * The command line, environment and folder a stdio server starts with (confined on the host, or
 * its sandbox launch's), the same for both SDKs' stdio transports; the spawn error when it cannot start.
 */
export function stdioSpawnParams(
  config: Extract<ResolvedServerConfig, { transport: "stdio" }>,
  options: Pick<CreateTransportOptions, "hostConfinement" | "sandboxed">,
): Error | { command: string; args: string[]; env: Record<string, string>; cwd?: string; stderr: "pipe" } {
  const line = options.sandboxed ? { ok: true as const, ...options.sandboxed } : options.hostConfinement.confine({ command: config.command, args: config.args, env: config.env, ...(config.cwd ? { cwd: config.cwd } : {}) });
  if (!line.ok) return line.error;
  const env: Record<string, string | undefined> = {};
  for (const name of DEFAULT_INHERITED_ENV_VARS) env[name] = undefined;
  Object.assign(env, line.env);
  return { command: line.command, args: [...line.args], env: env as Record<string, string>, ...(line.cwd ? { cwd: line.cwd } : {}), stderr: "pipe" };
}

/** A stdio server whose command cannot start (not found): start() fails with the spawn error, nothing runs. */
export class UnstartableTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly error: Error) {}

  async start(): Promise<void> {
    throw this.error;
  }

  async send(): Promise<void> {
    throw this.error;
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}
