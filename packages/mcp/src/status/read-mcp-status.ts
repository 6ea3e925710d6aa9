import fs from "node:fs";
import path from "node:path";
import { pidRuns, processScope } from "./process-scope.js";
import type { McpStatusFile, RecordedServer } from "./status-record.js";

/** One agent process that left a status record. */
export interface AgentStatus {
  readonly replica: string;
  readonly pid: number;
  readonly host: string;
  /** Whether its states count: it has not stopped, its process runs (where the reader can tell), and its heartbeat is recent. */
  readonly running: boolean;
  /** Why it does not count (when not running). */
  readonly reason?: string;
  /** How it is known not to run: it stopped (and said so), its process ended without a word, or it has not reported for too long. */
  readonly ended?: "stopped" | "died" | "silent";
  readonly startedAt: string;
  readonly heartbeatAt: string;
  readonly stoppedAt?: string;
}

/** A running agent's record, indexed by server name (and per user). */
export interface RunningAgent {
  readonly record: McpStatusFile;
  readonly servers: ReadonlyMap<string, RecordedServer>;
  readonly users: ReadonlyMap<string, ReadonlyMap<string, RecordedServer>>;
}

/** What readMcpStatus found: every agent that left a record, and the records of those running. */
export interface McpStatusReport {
  readonly agents: readonly AgentStatus[];
  readonly running: readonly RunningAgent[];
  /** When no agent runs: why no live state can be shown (the `unknown` state's reason). */
  readonly unknownReason?: string;
}

export interface ReadMcpStatusOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** A record whose heartbeat is older than this does not count (its process hangs, or is gone where the reader cannot ask). @default 3 × its heartbeatMs + 2000 */
  readonly staleAfterMs?: number;
}

/** A record larger than this is not read (a record of thousands of servers and users is a few MB). */
const maxRecordBytes = 32 * 1024 * 1024;

/**
 * Reads the agents' MCP status records (McpStatusRecorder) from the status folder. Local file
 * reads only: it never waits on a process, so a stopped or hung agent costs nothing (its states are
 * `unknown`, with the reason). A record counts while its process runs: not marked stopped, its pid
 * alive where the reader shares the process's kernel and pid namespace, and its heartbeat younger
 * than staleAfterMs (the only test across hosts and containers).
 */
export async function readMcpStatus(dir: string, options: ReadMcpStatusOptions = {}): Promise<McpStatusReport> {
  return reportOf(await readRecords(dir), options, processScope());
}

/** The records in the folder, indexed, or why the folder cannot be read (undefined when there is none). */
interface FolderRecords {
  readonly records: readonly RunningAgent[];
  readonly problem?: string;
}

async function readRecords(dir: string): Promise<FolderRecords> {
  let names: string[];
  try {
    names = (await fs.promises.readdir(dir)).filter((name) => name.endsWith(".json")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [] };
    return { records: [], problem: `the agent's status folder cannot be read: ${(error as Error).message}` };
  }
  const records: RunningAgent[] = [];
  for (const name of names) {
    const record = await readRecord(path.join(dir, name));
    if (record) records.push(runningAgent(record));
  }
  return { records };
}

/** Which records count now (their processes asked again on every call: cheap, and a crash shows at once). */
function reportOf(folder: FolderRecords, options: ReadMcpStatusOptions, scope: string | undefined): McpStatusReport {
  if (folder.problem) return { agents: [], running: [], unknownReason: folder.problem };
  const now = (options.now ?? Date.now)();
  const agents: AgentStatus[] = [];
  const running: RunningAgent[] = [];
  for (const indexed of folder.records) {
    const { record } = indexed;
    const ended = notRunning(record, now, scope, options.staleAfterMs);
    const reason = ended?.reason;
    agents.push({
      replica: record.replica,
      pid: record.pid,
      host: record.host,
      running: reason === undefined,
      ...(ended ? { reason: ended.reason, ended: ended.kind } : {}),
      startedAt: record.startedAt,
      heartbeatAt: record.heartbeatAt,
      ...(record.stoppedAt ? { stoppedAt: record.stoppedAt } : {}),
    });
    if (reason === undefined) running.push(indexed);
  }
  if (running.length > 0) return { agents, running };
  const latest = [...agents].sort((a, b) => Date.parse(b.heartbeatAt) - Date.parse(a.heartbeatAt))[0];
  return { agents, running, unknownReason: latest?.reason ?? noAgentReason };
}

/** A record indexed for lookups by server name. */
export function runningAgent(record: McpStatusFile): RunningAgent {
  const byName = (servers: readonly RecordedServer[]): Map<string, RecordedServer> => new Map(servers.map((server) => [server.name, server]));
  return { record, servers: byName(record.servers), users: new Map(Object.entries(record.users ?? {}).map(([user, servers]) => [user, byName(servers)])) };
}

/**
 * readMcpStatus behind a short cache: a busy listing reads the files at most once per maxAgeMs
 * (the agents look at their states once a second), and concurrent requests share one read. Which
 * agents run is decided again on every read, so a process that died shows at once.
 */
export class McpStatusReader {
  private cached: { at: number; records: Promise<FolderRecords> } | undefined;
  private readonly now: () => number;
  private readonly scope = processScope();

  constructor(
    private readonly dir: string,
    private readonly options: ReadMcpStatusOptions & { /** @default 250 */ readonly maxAgeMs?: number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  async read(): Promise<McpStatusReport> {
    const now = this.now();
    const fresh = !this.cached || now - this.cached.at >= (this.options.maxAgeMs ?? 250);
    if (fresh) this.cached = { at: now, records: readRecords(this.dir) };
    const cached = this.cached as { records: Promise<FolderRecords> };
    const report = reportOf(await cached.records, this.options, this.scope);
    // A process gone since the files were read may have written its last word (stopped at): read them again.
    const gone = report.agents.some((agent) => agent.ended === "died");
    if (fresh || !gone) return report;
    this.cached = { at: now, records: readRecords(this.dir) };
    return reportOf(await this.cached.records, this.options, this.scope);
  }
}

const noAgentReason = "no agent server has reported its MCP servers' states (is it running? it reports within a second of starting)";

async function readRecord(file: string): Promise<McpStatusFile | undefined> {
  try {
    const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > maxRecordBytes) return undefined;
      const record = JSON.parse(await handle.readFile("utf8")) as McpStatusFile;
      return record?.format === 1 && typeof record.replica === "string" && Array.isArray(record.servers) ? record : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    // Gone between readdir and open, or not a record: it says nothing.
    return undefined;
  }
}

/** Why a record does not count, or undefined while its process runs. */
function notRunning(record: McpStatusFile, now: number, scope: string | undefined, staleAfterMs: number | undefined): { kind: "stopped" | "died" | "silent"; reason: string } | undefined {
  const who = `the agent server ${record.replica} (pid ${record.pid} on ${record.host})`;
  if (record.stoppedAt) return { kind: "stopped", reason: `${who} stopped at ${record.stoppedAt}; no agent server runs now` };
  if (scope !== undefined && record.processScope === scope && !pidRuns(record.pid)) return { kind: "died", reason: `${who} is not running (it ended without stopping, last report ${record.heartbeatAt})` };
  const stale = staleAfterMs ?? 3 * (record.heartbeatMs || 5000) + 2000;
  const age = now - Date.parse(record.heartbeatAt);
  if (!(age <= stale)) return { kind: "silent", reason: `${who} has not reported since ${record.heartbeatAt} (${Math.round(age / 1000)} s ago): it stopped or hangs` };
  return undefined;
}
