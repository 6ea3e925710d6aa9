import { redactSecrets } from "@thinktank/core";
import type { LiveServerState } from "./live-server-state.js";

/** Every state GET /api/mcp/servers and `thinktank mcp list` show. */
export type ServerStateName = "connected" | "connecting" | "idle" | "needs_auth" | "unavailable" | "denied" | "shadowed" | "disabled" | "unknown";

/** What is known of one server for one caller, apart from the agent. */
export interface ServerStateInputs {
  /** false: switched off (`enabled: false`, or its plugin is disabled); the agent never starts it. */
  readonly enabled: boolean;
  /** What the configuration alone says: a plugin server's status, or a stdio server marked sandbox: true where the sandbox runs none. */
  readonly configured?: { readonly status: "available" | "unavailable" | "shadowed" | "denied"; readonly reason?: string };
  /** The caller's sign-in as the token store tells it, for a remote server that signs in: whether they must sign in, and why. */
  readonly signIn?: { readonly needsAuth: boolean; readonly reason?: string };
  /** What the running agents report for this caller (liveServerState); undefined when they hold no state for it. */
  readonly live: LiveServerState | undefined;
}

/** A server's state as the API shows it (JSON field names). */
export interface ServerStateView {
  readonly status: ServerStateName;
  readonly reason?: string;
  readonly tool_count?: number;
  readonly tools_from?: "live" | "cache";
  readonly protocol_version?: string;
  /** `PROTOCOL_UNSUPPORTED` while the server speaks neither MCP era, with the versions tried (and those it offers). */
  readonly code?: "PROTOCOL_UNSUPPORTED";
  readonly versions_tried?: readonly string[];
  readonly versions_offered?: readonly string[];
  readonly last_error_at?: string;
  readonly last_error?: string;
  /** When the agent wrote the state down. */
  readonly status_at?: string;
  readonly replicas?: readonly { readonly replica: string; readonly status: string; readonly reason?: string; readonly last_error_at?: string }[];
}

/**
 * One server's state for one caller, from what the configuration decides (denied, shadowed, off
 * win over anything the agent says), what the agents report (their live state), and the token
 * store (a sign-in the caller still needs). When no agent runs: a state the configuration or the
 * token store knows without it (unavailable, needs_auth), else `unknown` with the reason.
 */
export function serverStateView(inputs: ServerStateInputs): ServerStateView {
  const view = stateOf(inputs);
  // Reasons are masked where they are made (the manager, the recorder); once more here, as every answer is.
  return {
    ...view,
    ...(view.reason ? { reason: redactSecrets(view.reason) } : {}),
    ...(view.last_error ? { last_error: redactSecrets(view.last_error) } : {}),
    ...(view.replicas ? { replicas: view.replicas.map((each) => (each.reason ? { ...each, reason: redactSecrets(each.reason) } : each)) } : {}),
  };
}

function stateOf(inputs: ServerStateInputs): ServerStateView {
  const { configured, live, signIn } = inputs;
  if (configured?.status === "denied" || configured?.status === "shadowed") return { status: configured.status, ...(configured.reason ? { reason: configured.reason } : {}) };
  if (!inputs.enabled) return { status: "disabled", reason: "switched off (enabled: false, or its plugin is disabled): the agent does not start it" };
  // A per-user server the caller has no session of (idle) while they have not signed in: they need to.
  if (live && live.state === "idle" && signIn?.needsAuth) return { status: "needs_auth", ...(signIn.reason ? { reason: signIn.reason } : {}) };
  if (live && live.state !== "unknown") return fromLive(live);
  if (configured?.status === "unavailable") return { status: "unavailable", ...(configured.reason ? { reason: configured.reason } : {}) };
  if (signIn?.needsAuth) return { status: "needs_auth", ...(signIn.reason ? { reason: signIn.reason } : {}) };
  if (live) return { status: "unknown", ...(live.reason ? { reason: live.reason } : {}) };
  return { status: "unknown", reason: "the running agent server has not reported this server yet (it picks up a configuration change within a few seconds)" };
}

function fromLive(live: LiveServerState): ServerStateView {
  return {
    status: live.state as ServerStateName,
    ...(live.reason ? { reason: live.reason } : {}),
    ...(live.toolCount !== undefined ? { tool_count: live.toolCount } : {}),
    ...(live.toolsFrom ? { tools_from: live.toolsFrom } : {}),
    ...(live.protocolVersion ? { protocol_version: live.protocolVersion } : {}),
    ...(live.code ? { code: live.code, ...(live.versionsTried ? { versions_tried: live.versionsTried } : {}), ...(live.versionsOffered ? { versions_offered: live.versionsOffered } : {}) } : {}),
    ...(live.lastErrorAt ? { last_error_at: live.lastErrorAt } : {}),
    ...(live.lastError ? { last_error: live.lastError } : {}),
    ...(live.reportedAt ? { status_at: live.reportedAt } : {}),
    ...(live.replicas
      ? { replicas: live.replicas.map((each) => ({ replica: each.replica, status: each.state, ...(each.reason ? { reason: each.reason } : {}), ...(each.lastErrorAt ? { last_error_at: each.lastErrorAt } : {}) })) }
      : {}),
  };
}
