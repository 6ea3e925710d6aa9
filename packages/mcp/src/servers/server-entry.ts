/**
 * An MCP server as configured: a `mcpServers` entry of extensions_config.json, or a plugin server
 * merged in as `<plugin>:<server>`. Values may hold `$VAR` / `${VAR}` / `${VAR:-default}`
 * placeholders; they are resolved at connect time only. Extra keys are allowed and ignored.
 */
export interface McpServerEntry {
  /** "stdio" (the default when `command` is set), "sse", or "http" (also "streamable-http", "streamableHttp"). */
  readonly type?: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** OAuth for a remote server (see McpOAuthEntry); without it a server that asks for sign-in still gets interactive sign-in. */
  readonly oauth?: McpOAuthEntry;
  readonly description?: string;
  /** A disabled server is not managed at all. @default true */
  readonly enabled?: boolean;
  /** Set by whoever merged the entry (the plugins library) when it is known to be unusable. */
  readonly unavailable_reason?: string;
  /**
   * A stdio server to run in the sandbox, never on the host (`plugins.host_programs: sandbox` sets it
   * on plugin servers). Where the manager cannot do that, the server is unavailable with the reason.
   * @default false
   */
  readonly sandbox?: boolean;
  /**
   * A sandboxed stdio server's network: the hosts it may reach through the egress proxy (`host`,
   * `host:port`, `*.domain[:port]`, as a script tool's `network`). Ignored for a server on the host,
   * which has the host's network. @default none: no network
   */
  readonly network?: readonly string[];
  readonly [key: string]: unknown;
}

/**
 * The `oauth` block of a remote entry. `authorization_code` (the default) signs in through a
 * browser, with a configured client or one registered on the fly; `client_credentials` is
 * machine-to-machine. `clientId` / `callbackPort` are Claude Code's spellings (plugins' .mcp.json).
 */
export interface McpOAuthEntry {
  readonly grant?: "authorization_code" | "client_credentials";
  readonly client_id?: string;
  readonly clientId?: string;
  /** Write `${VAR}`: resolved at connect time, never stored resolved. */
  readonly client_secret?: string;
  /** Space-separated, or a list. */
  readonly scopes?: string | readonly string[];
  /** client_credentials: the token endpoint; discovered from the server when absent. */
  readonly token_url?: string;
  /** The loopback port `thinktank mcp login` listens on (a client registered with a fixed redirect URI). */
  readonly callback_port?: number;
  readonly callbackPort?: number;
  readonly [key: string]: unknown;
}

/** An entry's `oauth` block with placeholders resolved (in memory only: it may hold a client secret). */
export interface ResolvedOAuthSettings {
  readonly grant: "authorization_code" | "client_credentials";
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Space-separated. */
  readonly scopes?: string;
  readonly tokenUrl?: string;
  readonly callbackPort?: number;
}

export type McpTransportKind = "stdio" | "sse" | "http";

/** A stdio server ready to spawn: placeholders resolved, with the child's whole (minimal) environment. */
export interface StdioServerConfig {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  /** Exactly the child's environment: PATH and HOME from the host (on the host only), plus the entry's own `env`. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Present when it runs in the sandbox (`sandbox: true`): the hosts it may reach. */
  readonly sandbox?: { readonly network: readonly string[] };
}

/** A remote server (legacy SSE or streamable HTTP) with placeholders resolved. */
export interface RemoteServerConfig {
  readonly transport: "sse" | "http";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly oauth?: ResolvedOAuthSettings;
}

export type ResolvedServerConfig = StdioServerConfig | RemoteServerConfig;

/** The outcome of resolving an entry: a transport config, or why the server cannot be used. */
export type ServerResolution =
  | { readonly ok: true; readonly config: ResolvedServerConfig }
  | { readonly ok: false; readonly reason: string; readonly transport: McpTransportKind | undefined };
