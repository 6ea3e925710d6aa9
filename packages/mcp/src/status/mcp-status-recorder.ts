import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { redactSecrets } from "@thinktank/core";
import type { ManagerLogger, ManagerStatusReport, ServerStatus } from "../manager/manager-types.js";
import { pidRuns, processScope } from "./process-scope.js";
import type { McpStatusFile, RecordedServer } from "./status-record.js";

export interface McpStatusRecorderOptions {
  /** The status folder (mcpStatusDir(config)); made 0700 when missing. */
  readonly dir: string;
  /** Whose states are recorded: the agent's MCP manager. */
  readonly manager: { statusReport(): ManagerStatusReport };
  /** This process among several on one data folder (THINKTANK_REPLICA). @default `agent-<pid>` */
  readonly replica?: string;
  /** How often the manager's states are looked at; the file is written when they changed. @default 1000 */
  readonly intervalMs?: number;
  /** The file is rewritten at least this often, so a reader tells a running process from one that is gone. @default 5000 */
  readonly heartbeatMs?: number;
  /**
   * Runs before each look. The agent brings its manager in line with the configuration there (and
   * starts background connects of new servers), so a server added through the gateway shows
   * within intervalMs without waiting for a run. @default nothing
   */
  readonly beforeLook?: () => Promise<void>;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default a logger that drops everything */
  readonly logger?: ManagerLogger;
}

/** Files of other processes that ended (or stopped, or have not written for this long) are removed when a recorder starts. */
const deadFileAgeMs = 3_600_000;

/**
 * Writes the MCP manager's states where the gateway and `thinktank mcp list` read them
 * (readMcpStatus): one JSON file per agent process in the status folder, replaced atomically when
 * a state changes (looked at every intervalMs) and at least every heartbeatMs, and marked stopped
 * by stop(). Reasons are masked with core's redactSecrets on top of the manager's own care.
 */
export class McpStatusRecorder {
  readonly file: string;
  private readonly replica: string;
  private readonly intervalMs: number;
  private readonly heartbeatMs: number;
  private readonly now: () => number;
  private readonly startedAt: string;
  private readonly scope = processScope();
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private lastBody: string | undefined;
  private lastWrite = 0;
  private started = false;
  private stopped = false;

  constructor(private readonly options: McpStatusRecorderOptions) {
    this.replica = options.replica ?? `agent-${process.pid}`;
    this.intervalMs = options.intervalMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 5000;
    this.now = options.now ?? Date.now;
    this.startedAt = new Date(this.now()).toISOString();
    this.file = path.join(options.dir, `${fileStem(this.replica)}.json`);
  }

  /** Writes the first record, removes the files of processes that are gone, and looks again every intervalMs. */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    await fs.promises.mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    await this.sweep();
    await this.look();
    this.timer = setInterval(() => void this.look(), this.intervalMs);
    this.timer.unref();
  }

  /** One look now: writes the record when a state changed or a heartbeat is due. Never throws (a failed write is logged). */
  look(): Promise<void> {
    this.looking ??= this.lookOnce().finally(() => (this.looking = undefined));
    return this.looking;
  }

  /** Stops looking and writes the record once more, marked stopped (call it before the manager closes, so the last states are kept); nothing when it never started. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    await this.looking;
    if (!this.started) return;
    await this.write(this.body(), true);
  }

  private async lookOnce(): Promise<void> {
    if (this.stopped || !this.started) return;
    try {
      await this.options.beforeLook?.();
    } catch (error) {
      this.options.logger?.debug({ err: String(error) }, "mcp status: bringing the manager in line failed");
    }
    if (this.stopped) return;
    const body = this.body();
    if (body === this.lastBody && this.now() - this.lastWrite < this.heartbeatMs) return;
    await this.write(body, false);
  }

  private body(): string {
    const report = this.options.manager.statusReport();
    return JSON.stringify({ servers: report.shared.map(recorded), users: Object.fromEntries(Object.entries(report.users).map(([user, statuses]) => [user, statuses.map(recorded)])) });
  }

  private async write(body: string, stopping: boolean): Promise<void> {
    const now = new Date(this.now()).toISOString();
    const { servers, users } = JSON.parse(body) as Pick<McpStatusFile, "servers" | "users">;
    const record: McpStatusFile = {
      format: 1,
      replica: this.replica,
      pid: process.pid,
      host: os.hostname(),
      ...(this.scope ? { processScope: this.scope } : {}),
      startedAt: this.startedAt,
      heartbeatAt: now,
      heartbeatMs: this.heartbeatMs,
      ...(stopping ? { stoppedAt: now } : {}),
      servers,
      users,
    };
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      await fs.promises.writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      await fs.promises.rename(temp, this.file);
      this.lastBody = body;
      this.lastWrite = this.now();
    } catch (error) {
      await fs.promises.rm(temp, { force: true }).catch(() => undefined);
      this.options.logger?.warn({ file: this.file, err: String(error) }, "mcp status: the record cannot be written (GET /api/mcp/servers shows the servers as unknown)");
    }
  }

  /** Removes the records of other processes that are provably gone, stopped, or silent for an hour, and temp files left by killed writers. */
  private async sweep(): Promise<void> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.options.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(this.options.dir, name);
      if (file === this.file) continue;
      const temp = /\.(\d+)\.tmp$/.exec(name);
      if (temp) {
        if (!pidRuns(Number(temp[1]))) await fs.promises.rm(file, { force: true });
        continue;
      }
      if (!name.endsWith(".json")) continue;
      let record: Partial<McpStatusFile>;
      try {
        record = JSON.parse(await fs.promises.readFile(file, "utf8")) as Partial<McpStatusFile>;
      } catch {
        continue;
      }
      const ended = record.processScope !== undefined && record.processScope === this.scope && typeof record.pid === "number" && !pidRuns(record.pid);
      const silent = this.now() - Date.parse(String(record.heartbeatAt)) > deadFileAgeMs;
      if (record.stoppedAt !== undefined || ended || silent) await fs.promises.rm(file, { force: true });
    }
  }
}

/** A ServerStatus as it is written down: no pid, no retry bookkeeping, times as ISO strings, reasons masked. */
function recorded(status: ServerStatus): RecordedServer {
  return {
    name: status.name,
    ...(status.transport ? { transport: status.transport } : {}),
    state: status.state,
    ...(status.reason ? { reason: redactSecrets(status.reason) } : {}),
    ...(status.toolCount !== undefined ? { toolCount: status.toolCount } : {}),
    ...(status.toolsFrom ? { toolsFrom: status.toolsFrom } : {}),
    ...(status.protocolVersion ? { protocolVersion: status.protocolVersion } : {}),
    ...(status.code ? { code: status.code, ...(status.versionsTried ? { versionsTried: status.versionsTried } : {}), ...(status.versionsOffered ? { versionsOffered: status.versionsOffered } : {}) } : {}),
    ...(status.lastErrorAt !== undefined ? { lastErrorAt: new Date(status.lastErrorAt).toISOString() } : {}),
    ...(status.lastError ? { lastError: redactSecrets(status.lastError) } : {}),
    ...(status.timedOut ? { timedOut: true as const } : {}),
    ...(status.perUser ? { perUser: true as const } : {}),
  };
}

/** A file name for a replica: its name when it is made of `[A-Za-z0-9._-]`, else a cleaned name and a short hash. */
function fileStem(replica: string): string {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/.test(replica)) return replica;
  const cleaned = replica.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_").slice(0, 60);
  return `${cleaned}-${createHash("sha256").update(replica).digest("hex").slice(0, 8)}`;
}
