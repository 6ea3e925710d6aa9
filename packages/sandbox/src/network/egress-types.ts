/** What one run may reach through the egress proxy, and who it is (for the log). */
export interface EgressPolicy {
  /** Host patterns (`host`, `host:port`, `*.domain[:port]`; see `parseHostPattern`). */
  readonly allow: readonly string[];
  /** Who asked, for the log: e.g. `execute_code thread-1` or `tool github_search`. @default none */
  readonly label?: string;
  /**
   * The `Proxy-Authorization` value a connection must present (the deno backend's per-worker
   * secret, since any local process can reach its loopback listener). @default none: every
   * connection handed to the session is the run's own (bubblewrap's forwarder socket).
   */
  readonly proxyAuthorization?: string;
}

/** One connection (a CONNECT tunnel or a plain HTTP request) the proxy allowed or refused. */
export interface EgressConnection {
  /** `connect` (a tunnel, e.g. HTTPS) or `http` (one absolute-form request). */
  readonly kind: "connect" | "http";
  /** The target host as normalised (lower case, punycode), or as sent when it could not be read. */
  readonly host: string;
  readonly port: number;
  /** The address the proxy connected to, or the one it refused. */
  readonly address?: string;
  readonly allowed: boolean;
  /** Why: the pattern that allowed it, or the refusal in one line. */
  readonly reason: string;
  /** The proxy's answer: 200 for an open tunnel, the target's status for a request, 4xx/5xx from the proxy itself. */
  readonly status: number;
  /** Bytes from the program to the target (request bodies, tunnel data). */
  readonly bytesSent: number;
  /** Bytes from the target to the program (response bodies, tunnel data). */
  readonly bytesReceived: number;
  /** From the request's arrival to the end of the tunnel or response. */
  readonly ms: number;
  /** The run's label (`EgressPolicy.label`). */
  readonly label?: string;
}

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type EgressResolver = (hostname: string) => Promise<readonly string[]>;

export interface EgressProxyOptions {
  /** Addresses and blocks (optionally :port) the proxy may connect to although they are not public (config.sandbox.network.allowed_private). @default none */
  readonly allowedPrivate?: readonly string[];
  /** @default every address `dns.lookup` finds (`all: true`), in the system's order */
  readonly resolve?: EgressResolver;
  /** Called once per connection, when it has ended (or was refused): the agent's log. @default none */
  readonly onConnection?: (connection: EgressConnection) => void;
  /** Called when a run ends that made more connections than `maxRecordsPerRun`: how many were counted only. @default none */
  readonly onOmitted?: (policy: EgressPolicy, omitted: number) => void;
  /** Connections recorded (and reported) per run; past it they are counted only. @default 1,000 */
  readonly maxRecordsPerRun?: number;
  /** @default 10,000 ms to open the connection to the target (all its addresses together) */
  readonly connectTimeoutMs?: number;
  /** @default 5,000 ms for the name to resolve */
  readonly resolveTimeoutMs?: number;
  /** A tunnel or request with no data either way for this long is closed. @default 120,000 ms */
  readonly idleTimeoutMs?: number;
  /** Largest request head (request line and headers) a program may send. @default 16,384 bytes */
  readonly maxHeaderBytes?: number;
  /** Tunnels and requests open at once per run; more are answered 429. @default 32 */
  readonly maxConnectionsPerRun?: number;
  /** @default performance.now */
  readonly now?: () => number;
}
