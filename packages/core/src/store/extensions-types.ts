/**
 * The shape of extensions_config.json: four known sections plus any other top-level keys,
 * which are kept as they are (and in their order) on every write. Values may hold `$VAR` /
 * `${VAR}` placeholders; the store never resolves them.
 */
export interface ExtensionsDocument {
  mcpServers: Record<string, McpServerEntry>;
  skills: Record<string, EnabledEntry>;
  plugins: Record<string, EnabledEntry>;
  tools: Record<string, ToolEntry>;
  /** Plugin marketplaces added by name (optional: absent until the first is added). */
  marketplaces?: Record<string, MarketplaceRecord>;
  /** Per-user state keyed by the caller's id (optional: absent until a user makes a choice). */
  users?: Record<string, UserRecordEntry>;
  /** Sub-agents' switches keyed by identity (`agents.<identity>.enabled`; optional: absent until one is set). */
  agents?: Record<string, EnabledEntry>;
  [key: string]: unknown;
}

/** The four sections every document has (the reader adds an empty one when a file lacks it). */
export const extensionsSections = ["mcpServers", "skills", "plugins", "tools"] as const;
export type ExtensionsSection = (typeof extensionsSections)[number];

/** Sections a document may have: validated like the others when present, never added. */
export const optionalExtensionsSections = ["marketplaces", "users", "agents"] as const;
export type OptionalExtensionsSection = (typeof optionalExtensionsSections)[number];

/**
 * A marketplace added by name: where it comes from, and the exact version fetched. Credentials
 * are never part of it (they come from the environment at each fetch).
 */
export interface MarketplaceRecord {
  /** `github` (`repo`: owner/repo, `ref`, `path`), `git` (`url`, `ref`, `path`), `npm` (`package`, `version`), `directory` (`path`), `url` (of a marketplace.json). */
  source: { source: "github" | "git" | "npm" | "directory" | "url"; [key: string]: unknown };
  /** The git commit, or the npm tarball's integrity, or the marketplace.json's sha256, last fetched. */
  pinned?: { commit?: string; integrity?: string; version?: string; sha256?: string };
  /** ISO time of the last add or update. */
  updated_at?: string;
  [key: string]: unknown;
}

/** A server started as a child process and spoken to over stdin/stdout. */
export interface StdioServerEntry {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  description?: string;
  /** @default true */
  enabled?: boolean;
  [key: string]: unknown;
}

/** A server reached over the network: legacy SSE, or streamable HTTP ("http", also spelled "streamable-http" / "streamableHttp"). */
export interface RemoteServerEntry {
  type: "sse" | "http" | "streamable-http" | "streamableHttp";
  url: string;
  headers?: Record<string, string>;
  description?: string;
  /** @default true */
  enabled?: boolean;
  [key: string]: unknown;
}

export type McpServerEntry = StdioServerEntry | RemoteServerEntry;

/** A skill or plugin switch, keyed by its identity. */
export interface EnabledEntry {
  enabled: boolean;
  [key: string]: unknown;
}

/**
 * One user's own state (docs/architecture.md, "Users: who calls, what they own"): `skills` is
 * their enablement overlay over the administrator's defaults, keyed by skill identity. Other
 * keys are kept.
 */
export interface UserRecordEntry {
  skills?: Record<string, EnabledEntry>;
  /** Their enablement overlay over the administrator's `agents`, keyed by agent identity. */
  agents?: Record<string, EnabledEntry>;
  /** Their own remote MCP servers (streamable HTTP or SSE), offered to them alone as `~<name>`. */
  mcpServers?: Record<string, McpServerEntry>;
  /** Their memory switches (PUT /api/memory/settings); absent ones follow config memory.enabled and memory.auto. */
  memory?: { enabled?: boolean; auto?: boolean; [key: string]: unknown };
  [key: string]: unknown;
}

/** A registered script tool (the tools library refines this). */
export interface ToolEntry {
  name?: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  runtime: "python" | "node" | "shell";
  /** File name of the script under the tools folder (no path separators). */
  script: string;
  /** Seconds. */
  timeout?: number;
  parallel_capable?: boolean;
  /** @default true */
  enabled?: boolean;
  [key: string]: unknown;
}

/** What `read()` returns: deeply frozen, shared by every caller until the file changes. */
export interface ExtensionsSnapshot {
  /** The document without the store's own `revision` key. */
  readonly document: DeepReadonly<ExtensionsDocument>;
  /** Increases on every write through the store; 0 for a file that never had one. */
  readonly revision: number;
  /** The HTTP entity tag, quoted: `"<revision>-<content hash>"`, so a hand edit changes it too. */
  readonly etag: string;
  /** sha256 of the file's bytes, hex. */
  readonly hash: string;
}

export type DeepReadonly<T> = T extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
    : T;

/** One reason a document was refused, with the path of the bad field. */
export interface ExtensionsProblem {
  /** Readable path, e.g. `mcpServers.github.args[0]`. */
  readonly path: string;
  /** The same place as a JSON Pointer, e.g. `/mcpServers/github/args/0`. */
  readonly pointer: string;
  readonly message: string;
}
