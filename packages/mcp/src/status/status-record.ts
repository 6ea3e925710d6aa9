import path from "node:path";
import type { Config } from "@thinktank/core";
import type { McpTransportKind } from "../servers/server-entry.js";
import type { ServerState } from "../manager/manager-types.js";

/** Where agent servers record their MCP servers' states: `<data_dir>/mcp-status`, one file per agent process (replica). */
export function mcpStatusDir(config: Pick<Config, "data_dir">): string {
  return path.join(config.data_dir, "mcp-status");
}

/** One server's state in a status record (ServerStatus as it is written down; times as ISO strings). */
export interface RecordedServer {
  readonly name: string;
  readonly transport?: McpTransportKind;
  readonly state: ServerState;
  readonly reason?: string;
  readonly toolCount?: number;
  readonly toolsFrom?: "live" | "cache";
  readonly protocolVersion?: string;
  /** While unavailable because it speaks neither MCP era: PROTOCOL_UNSUPPORTED, the versions tried and those it offers. */
  readonly code?: "PROTOCOL_UNSUPPORTED";
  readonly versionsTried?: readonly string[];
  readonly versionsOffered?: readonly string[];
  readonly lastErrorAt?: string;
  readonly lastError?: string;
  /** The server never answered within connect_timeout_ms (while unavailable). */
  readonly timedOut?: true;
  /** Every user has a session (and a state) of their own. */
  readonly perUser?: true;
}

/**
 * The file an agent process keeps at `<mcp-status dir>/<replica>.json` (McpStatusRecorder) and the
 * gateway and the CLI read (readMcpStatus). It names no secret: entries are not in it, reasons are
 * the manager's (which leave configured secrets out) masked again with core's redactSecrets.
 */
export interface McpStatusFile {
  readonly format: 1;
  /** THINKTANK_REPLICA, else `agent-<pid>`. */
  readonly replica: string;
  readonly pid: number;
  readonly host: string;
  /** The kernel's boot id and the process's pid namespace: a reader that shares both can ask the kernel whether `pid` still runs. */
  readonly processScope?: string;
  readonly startedAt: string;
  /** Rewritten every `heartbeatMs` while the process runs. */
  readonly heartbeatAt: string;
  readonly heartbeatMs: number;
  /** Set by a process that stopped on purpose (its servers were closed). */
  readonly stoppedAt?: string;
  /** The shared servers as the operator sees them. */
  readonly servers: readonly RecordedServer[];
  /** Per user with sessions of their own (per-user servers, their own `~` servers). */
  readonly users: Readonly<Record<string, readonly RecordedServer[]>>;
}
