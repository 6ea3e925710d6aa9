import { operatorId } from "@thinktank/core";
import type { ServerState } from "../manager/manager-types.js";
import type { McpStatusReport } from "./read-mcp-status.js";
import type { RecordedServer } from "./status-record.js";

/** One server's live state as the running agents report it, for one caller: a recorded server's fields, and who reported it. */
export interface LiveServerState extends Omit<RecordedServer, "name" | "transport" | "perUser" | "state"> {
  /** `unknown` when no agent server runs (the reason says why). */
  readonly state: ServerState | "unknown";
  /** When the (latest) agent record holding it was written. */
  readonly reportedAt?: string;
  /** Each agent's own state, when more than one running agent reports the server (they may differ: each has its sessions). */
  readonly replicas?: readonly { readonly replica: string; readonly state: ServerState; readonly reason?: string; readonly lastErrorAt?: string }[];
}

/** When agents disagree, the state shown is the one that most needs attention. */
const severity: Record<ServerState, number> = { idle: 0, connected: 1, connecting: 2, needs_auth: 3, unavailable: 4 };

/**
 * `server`'s live state for `user` (a caller's id; the operator when absent): the state of their
 * own session where the server has one per user (a per-user server, their own `~` server), else
 * the shared session's, never another user's (a per-user server they have no session of is
 * `idle` for them). `{ state: "unknown" }` with the reason when no agent runs; undefined when the
 * running agents hold no state for it (a server they have not picked up yet).
 */
export function liveServerState(report: McpStatusReport, server: string, user: string = operatorId): LiveServerState | undefined {
  if (report.running.length === 0) return { state: "unknown", reason: report.unknownReason ?? "no agent server runs" };
  const found: { replica: string; at: string; server: RecordedServer }[] = [];
  let perUser = false;
  for (const agent of report.running) {
    const own = user === operatorId ? undefined : agent.users.get(user)?.get(server);
    const shared = own ? undefined : agent.servers.get(server);
    perUser ||= shared?.perUser === true;
    // A shared per-user server's shared session is the operator's: another user never sees its state.
    const seen = own ?? (shared && (!shared.perUser || user === operatorId) ? shared : undefined);
    if (seen) found.push({ replica: agent.record.replica, at: agent.record.heartbeatAt, server: seen });
  }
  if (found.length === 0) {
    // A per-user server whose shared session is the operator's: this user has none of their own yet.
    return perUser ? { state: "idle", reason: "no session of yours yet: the agent connects with your own sign-in on your first use", reportedAt: latestReport(report) } : undefined;
  }
  if (found.length === 1) return fromOne(found[0] as { at: string; server: RecordedServer });
  const chosen = found.reduce((worst, each) => (severity[each.server.state] > severity[worst.server.state] ? each : worst));
  const lastErrorAt = found.map((each) => each.server.lastErrorAt).filter((at): at is string => at !== undefined).sort().at(-1);
  const lastError = found.find((each) => each.server.lastErrorAt === lastErrorAt)?.server.lastError;
  const protocolVersion = (found.find((each) => each.server.state === "connected" && each.server.protocolVersion) ?? found.find((each) => each.server.protocolVersion))?.server.protocolVersion;
  const counted = chosen.server.toolCount !== undefined ? chosen : found.find((each) => each.server.toolCount !== undefined);
  const { state, reason, timedOut } = chosen.server;
  return {
    state,
    ...protocolProblem(chosen.server),
    ...(reason ? { reason: found.length > 1 ? `on ${chosen.replica}: ${reason}` : reason } : {}),
    ...(counted?.server.toolCount !== undefined ? { toolCount: counted.server.toolCount, ...(counted.server.toolsFrom ? { toolsFrom: counted.server.toolsFrom } : {}) } : {}),
    ...(protocolVersion ? { protocolVersion } : {}),
    ...(lastErrorAt ? { lastErrorAt } : {}),
    ...(lastError ? { lastError } : {}),
    ...(timedOut ? { timedOut } : {}),
    reportedAt: found.map((each) => each.at).sort().at(-1) as string,
    ...(found.length > 1
      ? { replicas: found.map((each) => ({ replica: each.replica, state: each.server.state, ...(each.server.reason ? { reason: each.server.reason } : {}), ...(each.server.lastErrorAt ? { lastErrorAt: each.server.lastErrorAt } : {}) })) }
      : {}),
  };
}

function latestReport(report: McpStatusReport): string {
  return report.running.map((agent) => agent.record.heartbeatAt).sort().at(-1) as string;
}

/** A server that speaks neither MCP era: the code, the versions tried and those it offers. */
function protocolProblem(server: RecordedServer): Pick<RecordedServer, "code" | "versionsTried" | "versionsOffered"> {
  if (!server.code) return {};
  return { code: server.code, ...(server.versionsTried ? { versionsTried: server.versionsTried } : {}), ...(server.versionsOffered ? { versionsOffered: server.versionsOffered } : {}) };
}

/** One agent's state of the server, as it is. */
function fromOne({ at, server }: { at: string; server: RecordedServer }): LiveServerState {
  const { state, reason, toolCount, toolsFrom, protocolVersion, lastErrorAt, lastError, timedOut } = server;
  return {
    state,
    ...protocolProblem(server),
    ...(reason ? { reason } : {}),
    ...(toolCount !== undefined ? { toolCount, ...(toolsFrom ? { toolsFrom } : {}) } : {}),
    ...(protocolVersion ? { protocolVersion } : {}),
    ...(lastErrorAt ? { lastErrorAt } : {}),
    ...(lastError ? { lastError } : {}),
    ...(timedOut ? { timedOut } : {}),
    reportedAt: at,
  };
}
