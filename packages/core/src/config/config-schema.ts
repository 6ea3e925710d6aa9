/**
 * The JSON Schema of config.yaml. Defaults live here (ajv fills them in), so the
 * schema doubles as the configuration reference. Unknown keys are rejected: a typo
 * should stop start-up, not be ignored.
 */
const port = { type: "integer", minimum: 0, maximum: 65535 } as const;
const positiveInt = { type: "integer", minimum: 1 } as const;
const path = { type: "string", minLength: 1 } as const;
// Browser origins allowed to call a service (exact scheme://host[:port]); none by default.
const origins = { type: "array", items: { type: "string", pattern: "^https?://[^/?#\\s]+$" }, uniqueItems: true, default: [] } as const;
// Extra names a service answers to in the Host header, besides the address it listens on.
const hostNames = { type: "array", items: { type: "string", pattern: "^[A-Za-z0-9.:\\[\\]-]+$" }, uniqueItems: true, default: [] } as const;

// A host a sandboxed program may reach: name or address, optionally :port; a leading "*." matches any subdomain.
export const networkPattern = { type: "string", minLength: 1, maxLength: 260, pattern: "^(\\*\\.)?[A-Za-z0-9._-]+(:[0-9]{1,5})?$|^\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?$" } as const;
// An address or CIDR block, optionally with :port (IPv6 in brackets when a port follows).
const privateAddress = { type: "string", minLength: 1, maxLength: 64, pattern: "^[0-9A-Fa-f:.\\[\\]/]+$" } as const;

const model = {
  type: "object",
  additionalProperties: false,
  required: ["provider"],
  properties: {
    provider: { enum: ["anthropic", "openai", "openai-compatible", "scripted"] },
    model: { type: "string" },
    api_key_env: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
    base_url: { type: "string" },
    temperature: { type: "number", minimum: 0, maximum: 2 },
    max_tokens: positiveInt,
    script: { type: "string" },
  },
} as const;

export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    data_dir: { ...path, default: ".thinktank" },
    extensions_config: { ...path, default: "extensions_config.json" },
    log: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        level: { enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"], default: "info" },
        dir: path,
      },
    },
    skills: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        path: { ...path, default: "skills" },
        container_path: { type: "string", pattern: "^/", default: "/mnt/skills" },
        // full: every skill and slash command in the system prompt; compact: a stable index, search_skills and the skills relevant to each message; auto: full while it costs at most auto_threshold_tokens.
        listing: { enum: ["full", "compact", "auto"], default: "auto" },
        auto_threshold_tokens: { type: "integer", minimum: 0, default: 2000 },
        // compact: how many skills (and, apart, slash commands) are offered with each new user message.
        relevant_limit: { type: "integer", minimum: 0, maximum: 20, default: 5 },
        // compact: how many further skills are named (name and location, no description) after those.
        relevant_named_limit: { type: "integer", minimum: 0, maximum: 40, default: 25 },
      },
    },
    plugins: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        path: { ...path, default: "plugins" },
        // Programs a plugin brings (stdio MCP servers, script tools, hooks). allow: stdio servers run on this host
        // (confined: no view of the service's processes or data folder, only their declared environment), script
        // tools and hooks of untrusted plugins in the sandbox; sandbox: stdio servers in the sandbox too; deny: none runs.
        host_programs: { enum: ["allow", "sandbox", "deny"], default: "allow" },
        // Deprecated: stdio_servers: deny is host_programs: deny (a warning at start-up says so).
        stdio_servers: { enum: ["allow", "deny"] },
        // Fetching marketplaces and plugins from git and npm: limits, and where github and npm sources go.
        fetch: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            timeout_seconds: { type: "number", exclusiveMinimum: 0, default: 120 },
            max_mb: { type: "number", exclusiveMinimum: 0, default: 200 },
            github_url: { type: "string", pattern: "^https?://", default: "https://github.com" },
            // Unset: npm's own configuration (npm_config_registry, then registry= in ~/.npmrc), else the public registry.
            npm_registry: { type: "string", pattern: "^https?://" },
            // Plain http:// git and registry URLs (an attacker on the path could change what is installed); https is always allowed.
            allow_http: { type: "boolean", default: false },
          },
        },
      },
    },
    gateway: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: "string", default: "127.0.0.1" },
        port: { ...port, default: 8001 },
        allowed_hosts: hostNames,
        allowed_origins: origins,
        slow_request_ms: { type: "number", minimum: 0, default: 1000 },
        max_upload_mb: { type: "number", exclusiveMinimum: 0, default: 50 },
        archive: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            max_entries: { ...positiveInt, default: 4096 },
            max_uncompressed_mb: { type: "number", exclusiveMinimum: 0, default: 200 },
            max_file_mb: { type: "number", exclusiveMinimum: 0, default: 50 },
            max_compression_ratio: { type: "number", exclusiveMinimum: 1, default: 200 },
          },
        },
      },
    },
    agent: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: "string", default: "127.0.0.1" },
        port: { ...port, default: 2024 },
        allowed_hosts: hostNames,
        allowed_origins: origins,
        threads: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            backend: { enum: ["sqlite", "postgres"], default: "sqlite" },
            sqlite_path: path,
            postgres_url_env: { type: "string", default: "DATABASE_URL" },
            // A thread's state (its messages) may not grow past this: a run or state update that would is refused with 413.
            max_state_mb: { type: "number", exclusiveMinimum: 0, default: 64 },
            // One history response holds states up to about this many MB (at least one state); a client pages on with `before`.
            history_max_mb: { type: "number", exclusiveMinimum: 0, default: 16 },
          },
        },
        // Events of finished runs kept for join / re-attached streams: oldest finished runs go first past a bound.
        run_events: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            retention_seconds: { type: "number", minimum: 0, default: 600 },
            max_runs: { type: "integer", minimum: 0, default: 2000 },
            max_mb: { type: "number", minimum: 0, default: 64 },
          },
        },
        // Runs shared by replicas (threads.backend postgres): each replica heartbeats the runs it executes;
        // another marks a run whose heartbeat is older than stale_after_seconds. SQLite (one process) ignores it.
        runs: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            heartbeat_seconds: { type: "number", exclusiveMinimum: 0, default: 5 },
            stale_after_seconds: { type: "number", exclusiveMinimum: 0, default: 30 },
          },
        },
        // How a run's events reach stream and join on other replicas (threads.backend postgres):
        // Postgres LISTEN/NOTIFY, or Redis pub/sub at the URL in the variable redis_url_env. SQLite ignores it.
        streams: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            backend: { enum: ["postgres", "redis"], default: "postgres" },
            redis_url_env: { type: "string", default: "REDIS_URL" },
          },
        },
        // A request slower than this is logged at warn; other requests at debug (errors at info/error).
        slow_request_ms: { type: "number", minimum: 0, default: 1000 },
      },
    },
    // Crons (POST /runs/crons, /threads/:id/runs/crons): runs on a schedule, each fire an ordinary run as the cron's owner.
    crons: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: "boolean", default: true },
        // A schedule whose times come closer together than this is refused (422 INVALID_CRON, field schedule).
        min_interval_seconds: { type: "number", exclusiveMinimum: 0, default: 60 },
        // Crons one owner may have; one more is refused (409 CRON_LIMIT_REACHED).
        max_per_owner: { type: "integer", minimum: 1, default: 100 },
        // A cron whose fires fail this many times in a row (the run errs, or cannot be created) is paused with the reason.
        max_consecutive_failures: { type: "integer", minimum: 1, default: 5 },
        // A time no replica fired when it came: fired once when one runs again (metadata.catch_up: true), or skipped.
        on_missed: { enum: ["catch_up", "skip"], default: "catch_up" },
        // A fire later than this after its time counts as missed (a slow start or a busy machine fires late, not missed).
        missed_after_seconds: { type: "number", exclusiveMinimum: 0, default: 30 },
      },
    },
    // Assistants (POST /assistants): configured variants of lead_agent, owned by their creator.
    assistants: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        // Assistants one owner may keep; one more is refused (409 ASSISTANT_LIMIT_REACHED).
        max_per_owner: { type: "integer", minimum: 1, default: 100 },
      },
    },
    // Sub-agents' definitions (agents/*.md): the project's folder of them (agents/custom holds installed ones).
    agents: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        path: { ...path, default: "agents" },
      },
    },
    // The task tool: the lead hands a sub-task to a sub-agent that runs in a context of its own.
    subagents: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: "boolean", default: true },
        // Sub-agents of one run at once; further task calls wait for a free slot.
        max_concurrent: { type: "integer", minimum: 1, maximum: 32, default: 3 },
        // task calls one run may make in all; past it a call answers SUBAGENT_FAILED.
        max_per_run: { type: "integer", minimum: 1, default: 6 },
        // 1: sub-agents cannot call task themselves; 2: they can, and theirs cannot; ...
        max_depth: { type: "integer", minimum: 1, maximum: 5, default: 1 },
        // One sub-agent's whole run, its tools included; past it the task answers SUBAGENT_TIMEOUT.
        timeout_seconds: { type: "number", exclusiveMinimum: 0, default: 600 },
        // An agent's `model: sonnet|opus|haiku` mapped to a configured model name; unmapped (and inherit) use the lead's model.
        models: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: { sonnet: { type: "string", minLength: 1 }, opus: { type: "string", minLength: 1 }, haiku: { type: "string", minLength: 1 } },
        },
      },
    },
    // Files of a thread (POST /threads/:id/files): bounds of an upload, and the Markdown versions of documents.
    files: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        max_file_mb: { type: "number", exclusiveMinimum: 0, default: 50 },
        max_files: { ...positiveInt, default: 10 },
        max_thread_mb: { type: "number", exclusiveMinimum: 0, default: 500 },
        conversion: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            enabled: { type: "boolean", default: true },
            timeout_seconds: { type: "number", exclusiveMinimum: 0, default: 60 },
            memory_mb: { type: "integer", minimum: 128, default: 512 },
            max_pages: { ...positiveInt, default: 500 },
            max_cells: { ...positiveInt, default: 200000 },
            max_output_mb: { type: "number", exclusiveMinimum: 0, default: 8 },
          },
        },
      },
    },
    memory: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        // per-user memory (/memories, the memory tool, the <memory> digest); a user's own switch is users.<id>.memory
        enabled: { type: "boolean", default: true },
        digest_tokens: { type: "integer", minimum: 0, maximum: 8000, default: 400 },
        max_files: { type: "integer", minimum: 1, maximum: 100000, default: 500 },
        max_kb: { type: "integer", minimum: 1, maximum: 1048576, default: 2048 },
        // automatic memory: after a run ends (debounced per thread), a background model call may update memory; a user's users.<id>.memory.auto overrides
        auto: { type: "boolean", default: false },
        // the models.providers entry automatic memory calls (a cheaper one); absent: the model runs use
        model: { type: "string", minLength: 1 },
        // how long a thread stays quiet after a run ends before automatic memory reads it (another run's end restarts the wait)
        auto_debounce_ms: { type: "integer", minimum: 0, maximum: 3600000, default: 10000 },
      },
    },
    models: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        default: { type: "string" },
        providers: { type: "object", additionalProperties: model, default: {} },
      },
    },
    code_execution: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        mode: { enum: ["direct", "code", "auto"], default: "auto" },
        auto_threshold_tokens: { type: "integer", minimum: 0, default: 4000 },
        timeout_seconds: { type: "number", exclusiveMinimum: 0, default: 30 },
        max_timeout_seconds: { type: "number", exclusiveMinimum: 0, default: 300 },
        max_stdout_bytes: { ...positiveInt, default: 20000 },
        max_stderr_bytes: { ...positiveInt, default: 10000 },
        code_api_dir: path,
      },
    },
    sandbox: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        backend: { enum: ["auto", "bubblewrap", "deno", "local"], default: "auto" },
        memory_mb: { ...positiveInt, default: 512 },
        max_processes: { ...positiveInt, default: 64 },
        cpu_seconds: { ...positiveInt, default: 60 },
        max_file_mb: { ...positiveInt, default: 64 },
        warm_pool_size: { type: "integer", minimum: 0, default: 2 },
        workspaces_dir: path,
        // Per thread workspace: runs are refused (and a run is stopped) past it.
        disk_quota_mb: { ...positiveInt, default: 1024 },
        // Programs running at once per process; more wait in a queue of max_queued, past it SANDBOX_BUSY.
        max_concurrent: { ...positiveInt, default: 8 },
        max_queued: { type: "integer", minimum: 0, default: 64 },
        // What sandboxed programs may reach, through the egress proxy on the host (docs/architecture.md, "Third-party code").
        network: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            // Host patterns execute_code and bash may reach (script tools declare their own): host, host:port, *.domain[:port].
            allow: { type: "array", items: networkPattern, uniqueItems: true, default: [] },
            // Loopback, private, link-local and metadata addresses the proxy may connect to anyway (a local service, tests): an address or CIDR, optionally :port.
            allowed_private: { type: "array", items: privateAddress, uniqueItems: true, default: [] },
          },
        },
      },
    },
    mcp: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        connect_timeout_ms: { ...positiveInt, default: 10000 },
        call_timeout_ms: { ...positiveInt, default: 60000 },
        retries: { type: "integer", minimum: 0, default: 3 },
        retry_base_delay_ms: { type: "integer", minimum: 0, default: 200 },
        catalog_dir: path,
        // Background discovery: servers whose tools are unknown connect off the request path.
        discovery_concurrency: { ...positiveInt, default: 8 },
        discovery_retry_base_ms: { ...positiveInt, default: 5000 },
        discovery_retry_max_ms: { ...positiveInt, default: 300000 },
        first_connect_grace_ms: { type: "integer", minimum: 0, default: 3000 },
        // Stdio servers marked sandbox: true (bubblewrap): each server's processes together, and how many.
        sandbox: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            memory_mb: { type: "integer", minimum: 96, default: 1024 },
            max_processes: { type: "integer", minimum: 8, default: 256 },
          },
        },
        // OAuth sign-in to remote servers; tokens live encrypted in <data_dir>/oauth.
        oauth: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            callback_url: { type: "string", pattern: "^https?://[^?#\\s]+$" },
            frontend_url: { type: "string", pattern: "^https?://[^#\\s]+$" },
            client_name: { type: "string", minLength: 1, default: "Thinktank" },
            client_metadata_url: { type: "string", pattern: "^https://[^?#\\s]+/[^?#\\s]+$" },
            refresh_before_seconds: { type: "integer", minimum: 0, default: 60 },
            sign_in_timeout_seconds: { ...positiveInt, default: 600 },
          },
        },
      },
    },
    search: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        default_limit: { ...positiveInt, default: 10 },
        max_limit: { ...positiveInt, default: 50 },
        embeddings: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            provider: { enum: ["none", "openai", "openai-compatible"], default: "none" },
            model: { type: "string" },
            base_url: { type: "string" },
            api_key_env: { type: "string" },
            weight: { type: "number", minimum: 0, maximum: 1, default: 0.5 },
          },
        },
      },
    },
    tools: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        scripts_dir: { ...path, default: "tools" },
        default_timeout_seconds: { type: "number", exclusiveMinimum: 0, default: 30 },
        log_retention_days: { ...positiveInt, default: 30 },
        // Human approval before a script tool first runs in a thread: untrusted ones, every one, or none.
        approval: { enum: ["untrusted", "always", "never"], default: "untrusted" },
      },
    },
    // Who calls (packages/identity): JWTs from the frontend's identity provider, and the audit log.
    auth: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        // Bearer JWTs: verified against the issuer's keys (jwks_url, else its OpenID discovery). Unset: no JWT is accepted.
        jwt: {
          type: "object",
          additionalProperties: false,
          required: ["issuer", "audience"],
          properties: {
            issuer: { type: "string", pattern: "^https?://[^\\s]+$" },
            audience: { anyOf: [{ type: "string", minLength: 1 }, { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 }] },
            jwks_url: { type: "string", pattern: "^https?://[^\\s]+$" },
            user_claim: { type: "string", minLength: 1, default: "sub" },
            name_claim: { type: "string", minLength: 1, default: "name" },
            role_claim: { type: "string", minLength: 1, default: "role" },
            admin_roles: { type: "array", items: { type: "string", minLength: 1 }, default: ["admin"] },
            // Asymmetric only: "none" and HS* are refused at load (load-config.ts says why).
            algorithms: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1, uniqueItems: true, default: ["RS256", "ES256", "PS256", "EdDSA"] },
            clock_skew_seconds: { type: "integer", minimum: 0, maximum: 300, default: 30 },
          },
        },
        // Who changed what: kept in the threads database, pruned past either bound.
        audit: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            retention_days: { ...positiveInt, default: 90 },
            max_entries: { ...positiveInt, default: 100000 },
          },
        },
      },
    },
    // The web console (apps/console, docs/console.md): served by the gateway at /, with the agent API under /agent.
    console: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: "boolean", default: true },
        // Where the gateway reaches the agent server for /agent; unset: agent.host:port (a wildcard address on loopback).
        agent_url: { type: "string", pattern: "^https?://[^?#\\s]+$" },
        // A console session ends this many hours after sign-in, whatever its use (absolute).
        session_hours: { type: "number", exclusiveMinimum: 0, maximum: 720, default: 12 },
        // A console session unused this long ends (idle).
        idle_minutes: { type: "number", exclusiveMinimum: 0, default: 120 },
        // Sign-in through auth.jwt's issuer (authorization code with PKCE); unset client_id: no OpenID sign-in.
        oidc: {
          type: "object",
          additionalProperties: false,
          default: {},
          properties: {
            client_id: { type: "string", minLength: 1 },
            // The environment variable holding the client secret; unset: a public client (PKCE alone).
            client_secret_env: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
            callback_url: { type: "string", pattern: "^https?://[^?#\\s]+$" },
            scopes: { type: "array", items: { type: "string", pattern: "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$" }, default: ["openid", "profile", "email"] },
          },
        },
      },
    },
    web_search: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        provider: { enum: ["none", "tavily", "brave", "searxng"], default: "none" },
        url: { type: "string" },
        api_key_env: { type: "string" },
        timeout_ms: { ...positiveInt, default: 10000 },
        max_results: { ...positiveInt, default: 5 },
      },
    },
  },
} as const;
