/**
 * Every error code Thinktank answers with, and the HTTP status it maps to.
 * This table is the one place codes meet HTTP: routes never pick statuses themselves.
 * Extend by adding a line; never rename a code (clients match on it).
 */
export const errorCodes = {
  // 400: bad input
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_YAML: 400,
  INVALID_PATH: 400,
  PATH_TRAVERSAL: 400,
  // a memory path outside /memories, through a link, or with a name the file rules refuse
  MEMORY_PATH_INVALID: 400,
  // a marketplace or plugin source that is malformed or unsafe to hand to git or npm (option injection, ext:: URLs, '..')
  INVALID_SOURCE: 400,
  // 401 / 403
  // no valid credentials where a route needs a caller (the services' answer since users exist)
  UNAUTHENTICATED: 401,
  // the code-mode bridge's wrong token (and, before users existed, the services' 401)
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  // a request from a name or a browser origin the service does not answer to (DNS rebinding, cross-site forms)
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  // a console request with the session cookie whose x-csrf-token is missing or not the session's
  CSRF_FAILED: 403,
  // the console session cookie names a session past its absolute or idle expiry (sign in again)
  SESSION_EXPIRED: 401,
  // an OpenID sign-in to the console failed (state, code, PKCE, id token); the callback says why
  OIDC_SIGN_IN_FAILED: 401,
  // a write to a read-only virtual folder (/mnt/skills, /mnt/user-data/uploads)
  READ_ONLY_PATH: 403,
  // the built-in assistant (lead_agent's) cannot be changed or deleted
  ASSISTANT_PROTECTED: 403,
  // 404
  NOT_FOUND: 404,
  MEMORY_NOT_FOUND: 404,
  SKILL_NOT_FOUND: 404,
  PLUGIN_NOT_FOUND: 404,
  TOOL_NOT_FOUND: 404,
  MCP_SERVER_NOT_FOUND: 404,
  MCP_TOOL_NOT_FOUND: 404,
  COMMAND_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  ASSISTANT_NOT_FOUND: 404,
  THREAD_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  CRON_NOT_FOUND: 404,
  MARKETPLACE_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  // a user's key id that is not theirs (DELETE /api/users/:id/keys/:key_id)
  KEY_NOT_FOUND: 404,
  // a thread's file (uploads, outputs, workspace) that is not there
  FILE_NOT_FOUND: 404,
  // 410: a finished run whose kept events were dropped (retention time or agent.run_events bounds)
  RUN_EVENTS_EXPIRED: 410,
  // 409 / 412
  CONFLICT: 409,
  SKILL_NAME_CONFLICT: 409,
  SKILL_AMBIGUOUS: 409,
  AGENT_AMBIGUOUS: 409,
  AGENT_NAME_CONFLICT: 409,
  COMMAND_AMBIGUOUS: 409,
  PLUGIN_NAME_CONFLICT: 409,
  MARKETPLACE_NAME_CONFLICT: 409,
  TOOL_NAME_CONFLICT: 409,
  CODEGEN_DUPLICATE_SERVER: 409,
  CODEGEN_OUTPUT_NOT_EMPTY: 409,
  THREAD_BUSY: 409,
  // an owner already keeps assistants.max_per_owner assistants
  ASSISTANT_LIMIT_REACHED: 409,
  // an owner who already has crons.max_per_owner crons
  CRON_LIMIT_REACHED: 409,
  PRECONDITION_FAILED: 412,
  // 413: too large
  PAYLOAD_TOO_LARGE: 413,
  ARCHIVE_TOO_LARGE: 413,
  ARCHIVE_TOO_MANY_ENTRIES: 413,
  ARCHIVE_COMPRESSION_RATIO: 413,
  // a fetched marketplace or plugin (git, npm, a URL) past plugins.fetch.max_mb
  SOURCE_TOO_LARGE: 413,
  // thread files: one upload past files.max_file_mb, more than files.max_files in one request, a thread's files past files.max_thread_mb
  FILE_TOO_LARGE: 413,
  TOO_MANY_FILES: 413,
  THREAD_FILES_FULL: 413,
  // one user's memory would hold more than memory.max_files files or memory.max_kb KiB
  MEMORY_FULL: 413,
  // a message (or state update) that would take a thread's state past agent.threads.max_state_mb
  THREAD_STATE_TOO_LARGE: 413,
  // 416: a Range a file cannot satisfy
  RANGE_NOT_SATISFIABLE: 416,
  // 415: a body of a type the route does not take
  UNSUPPORTED_MEDIA_TYPE: 415,
  // 422: an invalid package
  INVALID_PACKAGE: 422,
  INVALID_SKILL: 422,
  INVALID_PLUGIN: 422,
  INVALID_AGENT: 422,
  // an assistant's field or setting that is malformed or names nothing known (details.field)
  INVALID_ASSISTANT: 422,
  // a memory str_replace whose old_str is not in the file exactly once, an insert_line past the end
  MEMORY_EDIT_FAILED: 422,
  // a run's input, a command's update or a state update that the graph's state cannot take (details.field names it)
  INVALID_STATE_INPUT: 422,
  ARCHIVE_NOT_ZIP: 422,
  ARCHIVE_ABSOLUTE_PATH: 422,
  ARCHIVE_PATH_TRAVERSAL: 422,
  ARCHIVE_SYMLINK: 422,
  ARCHIVE_HARD_LINK: 422,
  ARCHIVE_SPECIAL_FILE: 422,
  ARCHIVE_BAD_NAME: 422,
  ARCHIVE_CORRUPT: 422,
  ARCHIVE_UNSUPPORTED: 422,
  // execute_code: the program does not compile, or imports something it may not
  CODE_BUILD_FAILED: 422,
  UNSUPPORTED_SOURCE: 422,
  INVALID_MARKETPLACE: 422,
  // a skill's tools.json or resources.json (its specialist context) is malformed
  SKILL_CONTEXT_INVALID: 422,
  // a frontmatter block past a parsing bound (size, aliases, depth, size once aliases are expanded)
  FRONTMATTER_TOO_COMPLEX: 422,
  // a LangGraph API field this server does not implement, sent with a value: refused rather than ignored (details.field names it)
  UNSUPPORTED_FIELD: 422,
  // a cron whose schedule, timezone, end_time or another field cannot be used (details.field names it)
  INVALID_CRON: 422,
  // 502 / 504: an MCP server answered with a protocol error, or not in time
  MCP_PROTOCOL_ERROR: 502,
  MCP_CALL_TIMEOUT: 504,
  // an MCP server that speaks neither protocol era Thinktank speaks (2026-07-28 by server/discover, 2025-11-25 by initialize)
  PROTOCOL_UNSUPPORTED: 502,
  // a 2026-07-28 tool answered input_required where no person can be asked (a call outside a run, code mode's programs)
  MCP_INPUT_REQUIRED: 409,
  // a git server, npm registry or URL that failed, served something other than it promised, or did not answer within plugins.fetch.timeout_seconds
  SOURCE_FETCH_FAILED: 502,
  INTEGRITY_MISMATCH: 502,
  SOURCE_TIMEOUT: 504,
  // 503: a dependency is down
  SERVICE_UNAVAILABLE: 503,
  // the gateway serves the console but apps/console/dist/app is missing: run npm run build
  CONSOLE_NOT_BUILT: 503,
  MODEL_NOT_CONFIGURED: 503,
  SANDBOX_UNAVAILABLE: 503,
  // sandboxed runs: the program hit its wall-clock timeout, or another limit (memory, CPU, output...); the sandbox itself failed
  SANDBOX_TIMEOUT: 408,
  SANDBOX_LIMIT_EXCEEDED: 422,
  SANDBOX_FAILED: 500,
  SANDBOX_BUSY: 503,
  NOT_CONFIGURED: 503,
  STORE_BUSY: 503,
  // registered script tools (ToolResponse error codes; the status applies when one reaches HTTP)
  TOOL_INVALID_ARGUMENTS: 400,
  TOOL_DISABLED: 409,
  TOOL_EXECUTION_ERROR: 500,
  TOOL_SCRIPT_FAILED: 502,
  TOOL_OUTPUT_NOT_JSON: 502,
  TOOL_OUTPUT_INVALID: 502,
  TOOL_OUTPUT_TOO_LARGE: 502,
  // a script tool that cannot run here (untrusted code and no sandbox for it, a shell script on the deno backend): never run on the host instead
  TOOL_UNAVAILABLE: 503,
  // a script tool call the user rejected at its approval (tools.approval), or answered so that it was not understood: it did not run
  TOOL_REJECTED: 403,
  WEB_SEARCH_FAILED: 502,
  // the task tool: a sub-agent that failed (or could not start: unknown agent, depth, the run's budget), or ran out of time
  SUBAGENT_FAILED: 500,
  SUBAGENT_TIMEOUT: 504,
  TIMEOUT: 504,
  // the caller gave up (a cancelled run): nginx's "client closed request"
  CANCELLED: 499,
  // OAuth sign-in to remote MCP servers: a bad or used `state`, an answer the authorization server refused,
  // a redirect target not allowed, a server that takes no sign-in, one that changed since the sign-in
  // began, metadata that cannot be trusted, an unreachable authorization server, a token store
  // this key cannot open; a tool call to a server that needs sign-in
  OAUTH_STATE_INVALID: 400,
  OAUTH_AUTHORIZATION_FAILED: 400,
  OAUTH_REDIRECT_NOT_ALLOWED: 400,
  OAUTH_NOT_APPLICABLE: 409,
  OAUTH_SERVER_CHANGED: 409,
  OAUTH_METADATA_REJECTED: 422,
  OAUTH_SERVER_UNREACHABLE: 502,
  OAUTH_STORE_UNREADABLE: 500,
  MCP_NEEDS_AUTH: 503,
  // 501: a LangGraph API route this server knowingly leaves out (the crons routes with crons.enabled: false)
  NOT_IMPLEMENTED: 501,
  // 500: our own fault
  CONFIG_INVALID: 500,
  // a service cannot write its data folder (a Docker volume of another uid, a read-only mount): it stops at start
  DATA_DIR_NOT_WRITABLE: 500,
  STORE_CORRUPT: 500,
  PORT_IN_USE: 500,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof errorCodes;

export function httpStatusFor(code: ErrorCode): number {
  return errorCodes[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(errorCodes, value);
}
