import type { Socket } from "node:net";
import { ThinktankError, type SandboxBackend } from "@thinktank/core";
import { parseHostPattern } from "./host-pattern.js";
import { EgressProxy } from "./egress-proxy.js";
import type { EgressConnection, EgressPolicy, EgressProxyOptions } from "./egress-types.js";

/** Where the executor logs (pino's and the MCP manager's loggers fit). */
export interface SandboxLogger {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

export interface RunEgressOptions {
  /** config.sandbox.network.allowed_private */
  readonly allowedPrivate: readonly string[];
  /** config.sandbox.network.allow: checked here so a pattern that does not parse stops start-up rather than every run. @default none */
  readonly allow?: readonly string[];
  /** Each connection allowed (info) or refused (warn), one line each. @default none */
  readonly logger?: SandboxLogger | undefined;
  /** The proxy's other options (resolver, timeouts, bounds). @default EgressProxy's */
  readonly proxy?: Omit<EgressProxyOptions, "allowedPrivate" | "onConnection" | "onOmitted"> | undefined;
}

/** One run's use of the egress proxy, as the executor drives it. */
export interface RunEgressHandle {
  /** The proxy variables the program gets (HTTP_PROXY, HTTPS_PROXY, both cases; NO_PROXY empty). */
  readonly env: Readonly<Record<string, string>>;
  /** Takes each of the program's connections to the worker's entrance. */
  accept(socket: Socket): void;
  /** Closes what is still open; every connection of the run, allowed or refused (the first 1,000: see `omitted`). */
  end(): EgressConnection[];
  /** Connections past the records' bound, counted only (read after `end`). */
  readonly omitted: number;
}

/** What a worker offers a run that may use the network. */
export interface EgressWorker {
  readonly egressEnv: Readonly<Record<string, string>>;
  readonly egressAuthorization: string | undefined;
}

/**
 * The executor's side of the egress proxy: one proxy for all its runs (created with the executor, so
 * a bad `allowed_private` entry or `allow` pattern fails at start-up, CONFIG_INVALID), one session per
 * run that has `network` patterns.
 * The local backend has no isolation to enforce them with: it runs such a run with the host's
 * network, and says so once in the log.
 */
export class RunEgress {
  private readonly proxy: EgressProxy;
  private warnedLocal = false;

  constructor(private readonly options: RunEgressOptions) {
    const { logger } = options;
    for (const pattern of options.allow ?? []) {
      const parsed = parseHostPattern(pattern);
      if ("problem" in parsed) throw new ThinktankError("CONFIG_INVALID", `sandbox.network.allow: ${parsed.problem}`);
    }
    this.proxy = new EgressProxy({
      ...options.proxy,
      allowedPrivate: options.allowedPrivate,
      ...(logger
        ? {
            onConnection: (connection: EgressConnection) => logConnection(logger, connection),
            onOmitted: (policy: EgressPolicy, omitted: number) => logger.warn({ label: policy.label, omitted }, `sandbox egress: ${omitted} more connections of this run were counted only, not recorded or logged one by one`),
          }
        : {}),
    });
  }

  /** Opens the run's session; undefined when the run has no patterns or the backend does not isolate (local). */
  open(network: readonly string[], label: string | undefined, backend: SandboxBackend, worker: EgressWorker): RunEgressHandle | undefined {
    if (network.length === 0) return undefined;
    if (backend === "local") {
      if (!this.warnedLocal) {
        this.warnedLocal = true;
        this.options.logger?.warn({ backend, network: [...network] }, "sandbox.backend local does not isolate programs: a run's network allowlist is not enforced, programs reach every host directly (no egress proxy, no log of their connections)");
      }
      return undefined;
    }
    const session = this.proxy.session({ allow: network, ...(label !== undefined ? { label } : {}), ...(worker.egressAuthorization !== undefined ? { proxyAuthorization: worker.egressAuthorization } : {}) });
    return {
      env: worker.egressEnv,
      accept: (socket) => session.accept(socket),
      end: () => session.end(),
      get omitted() {
        return session.omitted;
      },
    };
  }

  close(): void {
    this.proxy.close();
  }
}

function logConnection(logger: SandboxLogger, connection: EgressConnection): void {
  const details = { egress: connection };
  if (connection.allowed) logger.info(details, `sandbox egress: ${connection.host}:${connection.port} allowed`);
  else logger.warn(details, `sandbox egress: ${connection.host}:${connection.port} refused (${connection.status}): ${connection.reason}`);
}
