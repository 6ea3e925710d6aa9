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
  readonly description?: string;
  /** A disabled server is not managed at all. @default true */
  readonly enabled?: boolean;
  /** Set by whoever merged the entry (the plugins library) when it is known to be unusable. */
  readonly unavailable_reason?: string;
  readonly [key: string]: unknown;
}

export type McpTransportKind = "stdio" | "sse" | "http";

/** A stdio server ready to spawn: placeholders resolved, with the child's whole (minimal) environment. */
export interface StdioServerConfig {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  /** Exactly the child's environment: PATH and HOME from the host, plus the entry's own `env`. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A remote server (legacy SSE or streamable HTTP) with placeholders resolved. */
export interface RemoteServerConfig {
  readonly transport: "sse" | "http";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type ResolvedServerConfig = StdioServerConfig | RemoteServerConfig;

/** The outcome of resolving an entry: a transport config, or why the server cannot be used. */
export type ServerResolution =
  | { readonly ok: true; readonly config: ResolvedServerConfig }
  | { readonly ok: false; readonly reason: string; readonly transport: McpTransportKind | undefined };
