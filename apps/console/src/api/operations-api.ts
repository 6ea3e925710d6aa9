// The gateway routes behind the MCP servers, tools, activity, memory and users pages, typed as they
// answer (docs/console.md, "Servers, tools and activity"). Every name and text in them is untrusted.
import { api } from "./api-client.js";

export type ServerStatus = "connected" | "connecting" | "idle" | "needs_auth" | "unavailable" | "denied" | "shadowed" | "disabled" | "unknown";

export interface McpServerView {
  readonly name: string;
  readonly source: string;
  readonly transport: "stdio" | "sse" | "http" | "unknown";
  readonly enabled: boolean;
  readonly config: Readonly<Record<string, unknown>>;
  readonly status?: ServerStatus;
  readonly reason?: string;
  readonly tool_count?: number;
  readonly tools_from?: "live" | "cache";
  readonly protocol_version?: string;
  readonly last_error?: string;
  readonly last_error_at?: string;
  readonly status_at?: string;
  readonly auth?: { readonly signed_in: boolean; readonly grant: string; readonly expires_at?: string };
}

export interface McpToolView {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
}

export interface McpServerTools {
  readonly server: string;
  readonly tools: readonly McpToolView[];
  readonly fetched_at?: string;
  readonly note?: string;
}

/** Path segments of a name, encoded (server names may hold `:` and `~`, never `/`). */
const segment = (name: string) => encodeURIComponent(name);

export const listServers = (signal?: AbortSignal) => api<{ servers: McpServerView[] }>("/api/mcp/servers", { signal });
export const serverTools = (name: string, signal?: AbortSignal) => api<McpServerTools>(`/api/mcp/servers/${segment(name)}/tools`, { signal });
/** Adds a remote server; create-only, so an existing server of that name is never replaced from here. */
export const addRemoteServer = (name: string, entry: { type: "http" | "sse"; url: string }) =>
  api<McpServerView>(`/api/mcp/servers/${segment(name)}`, { method: "PUT", body: entry, headers: { "if-none-match": "*" } });
export const removeServer = (name: string) => api<void>(`/api/mcp/servers/${segment(name)}`, { method: "DELETE" });
/** Starts a sign-in; the gateway sends the browser back to `returnTo` (a path of this console) afterwards. */
export const startServerSignIn = (name: string, returnTo: string) =>
  api<{ server: string; authorization_url: string; expires_at: string }>(`/api/mcp/servers/${segment(name)}/auth`, { method: "POST", body: { return_to: returnTo } });
export const signOutOfServer = (name: string) => api<{ server: string; forgotten: boolean; revoked: boolean }>(`/api/mcp/servers/${segment(name)}/auth`, { method: "DELETE" });

export interface ToolView {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
  readonly runtime: string;
  readonly enabled: boolean;
  readonly timeout: number;
}

export interface ToolError {
  readonly code: string;
  readonly message: string;
}

export type ToolResult = { readonly status: "success"; readonly data: unknown } | { readonly status: "error"; readonly error: ToolError };

export interface ExecutionView {
  readonly id: string;
  readonly tool: string;
  readonly started_at: string;
  readonly duration_ms: number;
  readonly status: "success" | "error";
  readonly source?: string;
  readonly error?: ToolError;
  readonly thread_id?: string;
}

export const listTools = (signal?: AbortSignal) => api<{ tools: ToolView[] }>("/api/tools", { signal });
export const callTool = (name: string, args: Record<string, unknown>) => api<ToolResult>(`/api/tools/${segment(name)}/call`, { method: "POST", body: { arguments: args } });
export const toolExecutions = (name: string, signal?: AbortSignal) => api<{ executions: ExecutionView[] }>(`/api/tools/${segment(name)}/executions?limit=20`, { signal });

export interface AuditEntry {
  readonly id: string;
  readonly at: string;
  readonly actor?: { readonly id: string; readonly name: string; readonly role: string };
  readonly action: string;
  readonly target?: string;
  readonly outcome: "ok" | "denied" | "failed";
  readonly source?: string;
}

export interface AuditFilter {
  readonly action?: string;
  readonly actor?: string;
  readonly target?: string;
  readonly before?: string;
}

export function listAudit(filter: AuditFilter, signal?: AbortSignal) {
  const query = new URLSearchParams({ limit: "50" });
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value);
  return api<{ entries: AuditEntry[]; next?: string }>(`/api/audit?${query}`, { signal });
}

export interface MemoryFile {
  readonly path: string;
  readonly size: number;
  readonly modified: string;
}

export interface MemoryListing {
  readonly files: MemoryFile[];
  readonly total_bytes: number;
  readonly settings: { readonly enabled: boolean; readonly auto: boolean };
  readonly limits: { readonly max_files: number; readonly max_kb: number };
}

/** `/memories/notes/a.md` → `/api/memory/notes/a.md`, each segment encoded. */
const memoryUrl = (path: string) => `/api/memory/${path.replace(/^\/memories\/?/, "").split("/").map(encodeURIComponent).join("/")}`;

export const listMemory = (signal?: AbortSignal) => api<MemoryListing>("/api/memory", { signal });
export const readMemoryFile = (path: string, signal?: AbortSignal) => api<MemoryFile & { content: string }>(memoryUrl(path), { signal });
export const writeMemoryFile = (path: string, content: string) => api<MemoryFile>(memoryUrl(path), { method: "PUT", body: { content } });
export const deleteMemoryFile = (path: string) => api<void>(memoryUrl(path), { method: "DELETE" });
export const forgetAllMemory = () => api<{ removed: number }>("/api/memory", { method: "DELETE" });
export const setMemorySettings = (settings: { enabled?: boolean; auto?: boolean }) => api<{ enabled: boolean; auto: boolean }>("/api/memory/settings", { method: "PUT", body: settings });

export interface UserKey {
  readonly id: string;
  readonly created_at: string;
  readonly last4?: string;
}

export interface UserView {
  readonly id: string;
  readonly name: string;
  readonly role: "admin" | "user";
  readonly created_at: string;
  readonly keys: readonly UserKey[];
}

export const listUsers = (signal?: AbortSignal) => api<{ users: UserView[] }>("/api/users", { signal });
export const createUser = (name: string, role: "admin" | "user") => api<{ id: string; name: string; key_id: string; api_key: string }>("/api/users", { method: "POST", body: { name, role } });
export const deleteUser = (id: string) => api<void>(`/api/users/${segment(id)}`, { method: "DELETE" });
export const createKey = (id: string) => api<{ key_id: string; api_key: string }>(`/api/users/${segment(id)}/keys`, { method: "POST" });
export const deleteKey = (id: string, keyId: string) => api<void>(`/api/users/${segment(id)}/keys/${segment(keyId)}`, { method: "DELETE" });

/** A run as the agent's activity route lists it (GET /agent/runs/recent): its figures once it ended. */
export interface RunActivity {
  readonly run_id: string;
  readonly thread_id: string;
  readonly assistant_id: string;
  readonly status: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly owner_id?: string;
  readonly duration_ms?: number;
  readonly tokens?: { readonly input: number; readonly output: number; readonly total: number; readonly estimated?: boolean };
  readonly tool_calls?: number;
  readonly tool_errors?: number;
  readonly error?: { readonly error: string; readonly message: string };
}

/** The caller's runs; an administrator's `everyone` lists every user's (X-Thinktank-Scope: all). */
export const recentRuns = (everyone: boolean, signal?: AbortSignal) =>
  api<{ runs: RunActivity[] }>("/agent/runs/recent?limit=50", { signal, ...(everyone ? { headers: { "x-thinktank-scope": "all" } } : {}) });
