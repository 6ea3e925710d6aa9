import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { redactSecrets } from "@thinktank/core";
import type { ExecutionEntry, ExecutionNetworkRecord, ExecutionRecord } from "./execution-record.js";
import { linesFromEnd } from "./lines-from-end.js";
import { redactArguments } from "./redact-arguments.js";

export interface ExecutionLogOptions {
  /** Folder of the daily files, `tool-executions-YYYY-MM-DD.jsonl` (UTC days). */
  readonly dir: string;
  /** Days a file is kept after its own day (config.tools.log_retention_days). @default 30 */
  readonly retentionDays?: number;
  /** The clock that picks the day's file and the retention cut-off. @default () => new Date() */
  readonly now?: () => Date;
  /** Longest line in bytes; a larger output (then arguments) is replaced by a preview. @default 64 KiB */
  readonly maxLineBytes?: number;
  /**
   * Egress connections listed per record (`network`); past it they are counted in `network_omitted`.
   * Each reason is cut to 300 characters, and a line still too long lists fewer. @default 50
   */
  readonly maxNetworkRecords?: number;
  /** Told when a write or a clean-up fails; the tool call itself never fails because of the log. @default ignore */
  readonly onError?: (error: unknown) => void;
}

/** Most records `recent()` answers with. */
export const maxRecentExecutions = 1000;

const filePattern = /^tool-executions-(\d{4}-\d{2}-\d{2})\.jsonl$/;
const dayMs = 24 * 60 * 60 * 1000;

/**
 * Every tool call as one JSON line, in one file per UTC day; files older than the retention are
 * deleted when the day changes (checked on each write, with the injected clock). Several
 * processes may append to the same folder: each record is one `O_APPEND` write. Reads go
 * backwards from the newest file, so the recent calls cost little however large the log is.
 */
export class ExecutionLog {
  private readonly retentionDays: number;
  private readonly now: () => Date;
  private readonly maxLineBytes: number;
  private readonly maxNetworkRecords: number;
  private tail: Promise<unknown> = Promise.resolve();
  private prunedFor: string | undefined;

  constructor(private readonly options: ExecutionLogOptions) {
    this.retentionDays = options.retentionDays ?? 30;
    this.now = options.now ?? (() => new Date());
    this.maxLineBytes = options.maxLineBytes ?? 64 * 1024;
    this.maxNetworkRecords = options.maxNetworkRecords ?? 50;
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Appends one call (redacted) and answers the record as written. Never rejects. */
  record(entry: ExecutionEntry): Promise<ExecutionRecord> {
    const { network, network_omitted: networkOmitted, ...rest } = entry;
    const record = this.fit({
      id: crypto.randomUUID(),
      ...rest,
      arguments: redactArguments(entry.arguments),
      ...(entry.output !== undefined ? { output: redactSecrets(entry.output) } : {}),
      ...boundedNetwork(network ?? [], networkOmitted ?? 0, this.maxNetworkRecords),
    });
    const write = this.tail.then(async () => {
      try {
        const day = dayOf(this.now());
        // Private to the service: the calls' arguments and outputs (redacted, still nobody else's business).
        await fs.promises.mkdir(this.options.dir, { recursive: true, mode: 0o700 });
        if (this.prunedFor !== day) {
          this.prunedFor = day;
          await this.prune();
        }
        await fs.promises.appendFile(path.join(this.options.dir, fileFor(day)), `${JSON.stringify(record)}\n`, { mode: 0o600 });
      } catch (error) {
        this.options.onError?.(error);
      }
      return record;
    });
    this.tail = write;
    return write;
  }

  /** The most recent calls, newest first, of one tool or of all. */
  async recent(options: { tool?: string; limit?: number } = {}): Promise<ExecutionRecord[]> {
    await this.tail;
    const limit = Math.max(1, Math.min(options.limit ?? 20, maxRecentExecutions));
    const found: ExecutionRecord[] = [];
    for (const file of (await this.files()).reverse()) {
      for await (const line of linesFromEnd(path.join(this.options.dir, file))) {
        let record: ExecutionRecord;
        try {
          record = JSON.parse(line) as ExecutionRecord;
        } catch {
          continue; // a line cut short by a crash
        }
        if (options.tool !== undefined && record.tool !== options.tool) continue;
        found.push(record);
        if (found.length >= limit) return found;
      }
    }
    return found;
  }

  /** The daily files, oldest first. */
  async files(): Promise<string[]> {
    try {
      return (await fs.promises.readdir(this.options.dir)).filter((name) => filePattern.test(name)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  /** Deletes the files of days before the retention window; answers their names. */
  async prune(): Promise<string[]> {
    const cutoff = dayOf(new Date(this.now().getTime() - this.retentionDays * dayMs));
    const removed: string[] = [];
    for (const file of await this.files()) {
      const day = filePattern.exec(file)?.[1] as string;
      if (day >= cutoff) continue;
      try {
        await fs.promises.rm(path.join(this.options.dir, file), { force: true });
        removed.push(file);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
    return removed;
  }

  /** Resolves when every record handed in so far is written. */
  async flush(): Promise<void> {
    await this.tail;
  }

  /** Keeps a line under maxLineBytes: a huge output, then huge arguments, become previews; then fewer connections are listed. */
  private fit(record: ExecutionRecord): ExecutionRecord {
    let fitted = record;
    const fits = (): boolean => Buffer.byteLength(JSON.stringify(fitted)) <= this.maxLineBytes;
    for (const field of ["output", "arguments"] as const) {
      if (fits()) return fitted;
      const text = JSON.stringify(fitted[field]) ?? "";
      fitted = { ...fitted, [field]: { truncated: true, bytes: Buffer.byteLength(text), preview: text.slice(0, Math.floor(this.maxLineBytes / 8)) } };
    }
    while (!fits() && fitted.network && fitted.network.length > 0) {
      const kept = fitted.network.slice(0, Math.floor(fitted.network.length / 2));
      const omitted = (fitted.network_omitted ?? 0) + fitted.network.length - kept.length;
      const { network: _listed, ...rest } = fitted;
      fitted = { ...rest, ...(kept.length > 0 ? { network: kept } : {}), network_omitted: omitted };
    }
    return fitted;
  }
}

/** The first `max` connections, each reason cut to one short line, and the rest counted. */
function boundedNetwork(network: readonly ExecutionNetworkRecord[], counted: number, max: number): Pick<ExecutionRecord, "network" | "network_omitted"> {
  const kept = network.slice(0, max).map((connection) => (connection.reason.length > maxReasonLength ? { ...connection, reason: `${connection.reason.slice(0, maxReasonLength - 1)}…` } : connection));
  const omitted = counted + network.length - kept.length;
  return { ...(kept.length > 0 ? { network: kept } : {}), ...(omitted > 0 ? { network_omitted: omitted } : {}) };
}

const maxReasonLength = 300;

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function fileFor(day: string): string {
  return `tool-executions-${day}.jsonl`;
}
