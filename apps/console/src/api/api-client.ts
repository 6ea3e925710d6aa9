// One way to call the gateway and the agent API from the console: same origin, the session cookie,
// the CSRF token on every mutation, and errors as { code, message } (docs/console.md, "Contracts").

/** An error the API answered, with its code (e.g. SKILL_NOT_FOUND) and message as shown to people. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;

/** Set by the session once it is known; sent as `x-csrf-token` on every non-GET request. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Headers a mutation needs (also for the LangGraph SDK client, which sends its own requests). */
export function csrfHeaders(): Record<string, string> {
  return csrfToken ? { "x-csrf-token": csrfToken } : {};
}

export interface RequestOptions {
  readonly method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** JSON body (sent as application/json), or FormData for uploads. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  /** Extra request headers (e.g. `if-none-match: *` for create-only writes). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Calls a path on this origin (`/api/...` for the gateway, `/agent/...` for the agent API). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json", ...options.headers, ...(method === "GET" ? {} : csrfHeaders()) };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const response = await fetch(path, { method, headers, body, credentials: "same-origin", signal: options.signal });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!response.ok) throw toApiError(response.status, parsed, text);
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The gateway answers `{ error: { code, message } }`; the agent API `{ code, message }` or `{ detail }`. */
export function toApiError(status: number, parsed: unknown, text: string): ApiError {
  const record = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
  const inner = (record.error && typeof record.error === "object" ? record.error : record) as Record<string, unknown>;
  const code = typeof inner.code === "string" ? inner.code : `HTTP_${status}`;
  const message = typeof inner.message === "string" ? inner.message : typeof record.detail === "string" ? record.detail : text.slice(0, 500) || `HTTP ${status}`;
  return new ApiError(status, code, message);
}
