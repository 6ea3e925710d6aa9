/**
 * The validated, frozen configuration every entry point passes down. It mirrors
 * config.yaml key for key (snake_case included) so the file and the code read alike.
 * Every path here is absolute: relative ones were resolved against config.yaml's folder.
 */
export type ModelProvider = "anthropic" | "openai" | "openai-compatible" | "scripted";
export type CodeExecutionMode = "direct" | "code" | "auto";
/** `auto`: bubblewrap when it is usable on this host, else deno. */
export type SandboxBackend = "auto" | "bubblewrap" | "deno" | "local";
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface ModelConfig {
  readonly provider: ModelProvider;
  readonly model?: string;
  /** Name of the environment variable that holds the key (the key itself never sits in config). */
  readonly api_key_env?: string;
  readonly base_url?: string;
  readonly temperature?: number;
  readonly max_tokens?: number;
  /** For the scripted model: a JSON or YAML script file. */
  readonly script?: string;
}

/** `auth.jwt`: how a bearer JWT is verified and read into a caller. */
export interface JwtConfig {
  /** The `iss` every token must carry; also where OpenID discovery looks (`<issuer>/.well-known/openid-configuration`). */
  readonly issuer: string;
  /** The `aud` a token must carry (one of them, when a list). */
  readonly audience: string | readonly string[];
  /** The issuer's JWKS; unset: the `jwks_uri` of its discovery document. */
  readonly jwks_url?: string;
  /** The claim naming the user (the caller's id is `jwt:<value>`). @default "sub" */
  readonly user_claim: string;
  /** The claim with the display name (else the id). @default "name" */
  readonly name_claim: string;
  /** The claim with the role or roles (a string or a list; a dotted path reaches nested claims). @default "role" */
  readonly role_claim: string;
  /** Role claim values that make the caller an administrator. @default ["admin"] */
  readonly admin_roles: readonly string[];
  /** Accepted signature algorithms, asymmetric only (never "none" or HS*). @default ["RS256", "ES256", "PS256", "EdDSA"] */
  readonly algorithms: readonly string[];
  /** Leeway for exp and nbf. @default 30 */
  readonly clock_skew_seconds: number;
}

export interface Config {
  /** Absolute path of the config.yaml that was loaded, or undefined for embedded defaults. */
  readonly config_path: string | undefined;
  /** The folder relative paths were resolved against. */
  readonly base_dir: string;
  /** From THINKTANK_API_KEY; undefined means loopback-only. Never logged or serialized. */
  readonly api_key: string | undefined;
  /** Deprecated keys the file used, one warning line each (entry points log them once at start-up). */
  readonly deprecations: readonly string[];
  /** The environment the entry point read (for `${VAR}` expansion and model keys). Libraries never read process.env. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly data_dir: string;
  readonly extensions_config: string;
  readonly log: { readonly level: LogLevel; readonly dir: string };
  readonly skills: {
    readonly path: string;
    readonly container_path: string;
    readonly listing: "full" | "compact" | "auto";
    readonly auto_threshold_tokens: number;
    readonly relevant_limit: number;
    readonly relevant_named_limit: number;
  };
  readonly plugins: {
    readonly path: string;
    /**
     * Programs a plugin brings (stdio MCP servers, script tools, hooks): `allow` runs stdio servers
     * confined on this host and untrusted script tools and hooks in the sandbox; `sandbox` runs its
     * stdio servers in the sandbox too; `deny` runs none. `stdio_servers: deny` (deprecated) sets `deny`.
     * @default "allow"
     */
    readonly host_programs: "allow" | "sandbox" | "deny";
    /** Deprecated spelling of `host_programs` (deny → deny); kept so old config files load. */
    readonly stdio_servers?: "allow" | "deny";
    /** Fetching marketplaces and plugins from git and npm. */
    readonly fetch: {
      /** Seconds one fetch (a clone, a registry request) may take. @default 120 */
      readonly timeout_seconds: number;
      /** Megabytes one fetch may bring in. @default 200 */
      readonly max_mb: number;
      /** Where `github` sources (`owner/repo`) are cloned from. @default "https://github.com" */
      readonly github_url: string;
      /** The npm registry; unset: npm's own configuration, else the public registry. */
      readonly npm_registry?: string;
      /** Allow plain http:// URLs. @default false */
      readonly allow_http: boolean;
    };
  };
  readonly gateway: {
    readonly host: string;
    readonly port: number;
    readonly allowed_hosts: readonly string[];
    readonly allowed_origins: readonly string[];
    readonly slow_request_ms: number;
    readonly max_upload_mb: number;
    readonly archive: {
      readonly max_entries: number;
      readonly max_uncompressed_mb: number;
      readonly max_file_mb: number;
      readonly max_compression_ratio: number;
    };
  };
  readonly agent: {
    readonly host: string;
    readonly port: number;
    readonly allowed_hosts: readonly string[];
    readonly allowed_origins: readonly string[];
    readonly threads: {
      readonly backend: "sqlite" | "postgres";
      readonly sqlite_path: string;
      readonly postgres_url_env: string;
      /** A thread's state may not grow past this many MB; a run or state update that would is refused (413 THREAD_STATE_TOO_LARGE). @default 64 */
      readonly max_state_mb: number;
      /** One history response holds states up to about this many MB (always at least one state). @default 16 */
      readonly history_max_mb: number;
    };
    readonly run_events: {
      readonly retention_seconds: number;
      readonly max_runs: number;
      readonly max_mb: number;
    };
    /** Runs shared by replicas; used only with `threads.backend: postgres`. */
    readonly runs: {
      /** How often a replica heartbeats the runs it executes. @default 5 */
      readonly heartbeat_seconds: number;
      /** A run whose heartbeat is older than this is taken as left by a dead replica. @default 30 */
      readonly stale_after_seconds: number;
    };
    /** How run events cross replicas; used only with `threads.backend: postgres`. */
    readonly streams: {
      /** Postgres LISTEN/NOTIFY, or Redis pub/sub. @default "postgres" */
      readonly backend: "postgres" | "redis";
      /** The environment variable holding the Redis URL (backend redis). @default "REDIS_URL" */
      readonly redis_url_env: string;
    };
    readonly slow_request_ms: number;
  };
  /** Crons: runs on a schedule (packages/runs, "Crons"). */
  readonly crons: {
    /** Serve the cron routes and fire crons; off, the routes answer 501 NOT_IMPLEMENTED and nothing fires. @default true */
    readonly enabled: boolean;
    /** The shortest time between two of a schedule's times; closer ones are refused (422 INVALID_CRON). @default 60 */
    readonly min_interval_seconds: number;
    /** Crons one owner may have (409 CRON_LIMIT_REACHED past it). @default 100 */
    readonly max_per_owner: number;
    /** Fires failing this many times in a row pause the cron, with the reason. @default 5 */
    readonly max_consecutive_failures: number;
    /** A time missed while no replica ran: fired once on start (`catch_up`, the run's metadata.catch_up true) or skipped. @default "catch_up" */
    readonly on_missed: "catch_up" | "skip";
    /** How late a fire may be before its time counts as missed. @default 30 */
    readonly missed_after_seconds: number;
  };
  /** Assistants: configured variants of graph lead_agent (packages/runs, "Assistants"). */
  readonly assistants: {
    /** Assistants one owner may keep (409 ASSISTANT_LIMIT_REACHED past it). @default 100 */
    readonly max_per_owner: number;
  };
  /** Sub-agents' definitions (`agents/*.md`). */
  readonly agents: {
    /** The project's agents folder (absolute once loaded); installed agents go to `<path>/custom`. @default "agents" */
    readonly path: string;
  };
  /** The `task` tool: sub-tasks handed to sub-agents, each in a context of its own. */
  readonly subagents: {
    /** Offer the `task` tool and the `<subagent_system>` section. @default true */
    readonly enabled: boolean;
    /** Sub-agents one run runs at once; more task calls wait for a slot. @default 3 */
    readonly max_concurrent: number;
    /** task calls one run may make in all. @default 6 */
    readonly max_per_run: number;
    /** How deep delegation goes: 1 means a sub-agent has no task tool. @default 1 */
    readonly max_depth: number;
    /** One sub-agent's run, tools included. @default 600 */
    readonly timeout_seconds: number;
    /** Claude Code's model aliases mapped to configured model names; an alias not mapped (and `inherit`) runs on the lead's model. @default {} */
    readonly models: { readonly sonnet?: string; readonly opus?: string; readonly haiku?: string };
  };
  /** Per-user memory: files the model sees as `/memories` (packages/memory). */
  readonly memory: {
    /** The memory tool and the `<memory>` digest in runs; a user's own switch and an assistant's `memory` can turn it off. @default true */
    readonly enabled: boolean;
    /** The most tokens the `<memory>` digest on a new thread's first message takes, whatever the memory holds. @default 400 */
    readonly digest_tokens: number;
    /** The most files one user's memory holds. @default 500 */
    readonly max_files: number;
    /** The most one user's memory holds in all, in KiB (one file included). @default 2048 */
    readonly max_kb: number;
    /** Automatic memory: after a run ends, a background model call may update the user's memory from the new messages; each user's `users.<id>.memory.auto` overrides it. @default false */
    readonly auto: boolean;
    /** The `models.providers` entry automatic memory calls (it may be a cheaper model). @default the model runs use */
    readonly model?: string;
    /** How long a thread must stay quiet after a run ends before automatic memory reads it; a later run's end restarts the wait. @default 10000 */
    readonly auto_debounce_ms: number;
  };
  /** A thread's files: uploads into `uploads/`, and Markdown versions of documents. */
  readonly files: {
    /** One uploaded file. @default 50 */
    readonly max_file_mb: number;
    /** Files in one upload request. @default 10 */
    readonly max_files: number;
    /** All of a thread's files (uploads, outputs, workspace). @default 500 */
    readonly max_thread_mb: number;
    /** Markdown side files of PDF, DOCX, XLSX, PPTX, CSV and HTML uploads, made in a confined worker. */
    readonly conversion: {
      /** @default true */
      readonly enabled: boolean;
      /** Wall clock for one document. @default 60 */
      readonly timeout_seconds: number;
      /** Memory of the worker converting one document, in MiB (at least 128: the worker needs that to start in the sandbox). @default 512 */
      readonly memory_mb: number;
      /** PDF pages and PPTX slides read. @default 500 */
      readonly max_pages: number;
      /** Spreadsheet and CSV cells read. @default 200000 */
      readonly max_cells: number;
      /** Markdown written for one document. @default 8 */
      readonly max_output_mb: number;
    };
  };
  readonly models: { readonly default: string | undefined; readonly providers: Readonly<Record<string, ModelConfig>> };
  readonly code_execution: {
    readonly mode: CodeExecutionMode;
    readonly auto_threshold_tokens: number;
    readonly timeout_seconds: number;
    readonly max_timeout_seconds: number;
    readonly max_stdout_bytes: number;
    readonly max_stderr_bytes: number;
    readonly code_api_dir: string;
  };
  readonly sandbox: {
    readonly backend: SandboxBackend;
    readonly memory_mb: number;
    readonly max_processes: number;
    readonly cpu_seconds: number;
    readonly max_file_mb: number;
    readonly warm_pool_size: number;
    readonly workspaces_dir: string;
    /** Disk a thread's workspace may use, in MiB. */
    readonly disk_quota_mb: number;
    /** Programs running at once per process. */
    readonly max_concurrent: number;
    /** Runs waiting for a slot; past it a run fails with SANDBOX_BUSY. */
    readonly max_queued: number;
    /** What sandboxed programs may reach through the egress proxy. */
    readonly network: {
      /** Host patterns (`host`, `host:port`, `*.domain[:port]`) execute_code and bash may reach. @default [] */
      readonly allow: readonly string[];
      /** Private, loopback, link-local or metadata addresses (or CIDRs, optionally :port) the proxy may still connect to. @default [] */
      readonly allowed_private: readonly string[];
    };
  };
  readonly mcp: {
    readonly connect_timeout_ms: number;
    readonly call_timeout_ms: number;
    readonly retries: number;
    readonly retry_base_delay_ms: number;
    readonly catalog_dir: string;
    /** Background connects of servers whose tools are unknown, at most this many at once. */
    readonly discovery_concurrency: number;
    /** After a failed background connect, wait this long before the next (doubling per failure, up to discovery_retry_max_ms). */
    readonly discovery_retry_base_ms: number;
    readonly discovery_retry_max_ms: number;
    /** How long a request may wait for a newly configured server's first connect (0: never). */
    readonly first_connect_grace_ms: number;
    /** Limits of each stdio server that runs in the sandbox (`sandbox: true`). */
    readonly sandbox: {
      /** Memory in MiB: the server's processes together where a cgroup is writable, and each process (RLIMIT_DATA). @default 1024 */
      readonly memory_mb: number;
      /** Processes and threads in its sandbox (RLIMIT_NPROC). @default 256 */
      readonly max_processes: number;
    };
    /** OAuth sign-in to remote MCP servers (tokens: encrypted under <data_dir>/oauth). */
    readonly oauth: {
      /** The redirect URI sign-ins through the gateway use. @default the gateway's own address, as the request named it */
      readonly callback_url?: string;
      /** After the callback, redirect the browser here with `mcp_server` and `mcp_auth=connected|failed` (and `code` on failure) instead of a small page. */
      readonly frontend_url?: string;
      /** The client name sent with dynamic client registration. */
      readonly client_name: string;
      /** An https URL of a client ID metadata document, used as the client_id where the authorization server supports it. */
      readonly client_metadata_url?: string;
      /** Refresh an access token this many seconds before it expires. */
      readonly refresh_before_seconds: number;
      /** How long a sign-in may take from its authorization URL to the callback. */
      readonly sign_in_timeout_seconds: number;
    };
  };
  readonly search: {
    readonly default_limit: number;
    readonly max_limit: number;
    readonly embeddings: {
      readonly provider: "none" | "openai" | "openai-compatible";
      readonly model?: string;
      readonly base_url?: string;
      readonly api_key_env?: string;
      /** Share of a blended score that comes from meaning (skill search and each message's offer); the rest from keywords. @default 0.5 */
      readonly weight: number;
    };
  };
  readonly tools: {
    readonly scripts_dir: string;
    readonly default_timeout_seconds: number;
    readonly log_retention_days: number;
    /** Human approval before a script tool first runs in a thread. @default "untrusted" */
    readonly approval: "untrusted" | "always" | "never";
  };
  /** Who calls (packages/identity). */
  readonly auth: {
    /** Bearer JWTs from the frontend's identity provider; unset: none is accepted. */
    readonly jwt?: JwtConfig;
    /** The audit log (threads database): entries older than retention_days, or past max_entries, are pruned. */
    readonly audit: {
      /** @default 90 */
      readonly retention_days: number;
      /** @default 100000 */
      readonly max_entries: number;
    };
  };
  /** The web console (docs/console.md): served by the gateway at `/`, the agent API proxied under `/agent`. */
  readonly console: {
    /** Serve the console and proxy `/agent`. @default true */
    readonly enabled: boolean;
    /** Where the gateway reaches the agent server for `/agent` (e.g. http://agent:2024 in Docker). @default http://<agent.host>:<agent.port>, loopback for a wildcard address */
    readonly agent_url?: string;
    /** A session ends this many hours after sign-in (absolute). @default 12 */
    readonly session_hours: number;
    /** A session unused this many minutes ends. @default 120 */
    readonly idle_minutes: number;
    /** OpenID sign-in through `auth.jwt.issuer` (authorization code with PKCE S256); off while client_id is unset. */
    readonly oidc: {
      /** The client registered at the issuer for the console. */
      readonly client_id?: string;
      /** The environment variable holding the client secret; unset: a public client (PKCE alone). */
      readonly client_secret_env?: string;
      /** The redirect URI registered at the issuer. @default the gateway's own address as the request named it + /api/session/oidc/callback */
      readonly callback_url?: string;
      /** @default ["openid", "profile", "email"] */
      readonly scopes: readonly string[];
    };
  };
  readonly web_search: {
    readonly provider: "none" | "tavily" | "brave" | "searxng";
    readonly url?: string;
    readonly api_key_env?: string;
    readonly timeout_ms: number;
    readonly max_results: number;
  };
}
