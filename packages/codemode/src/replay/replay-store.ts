import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { RecordedCall } from "./call-replay.js";

export interface ReplayStoreOptions {
  /** The folder of the records (0700; each record 0600). */
  readonly dir: string;
  /** Records older than this are removed when another is written (a pause never resumed). @default 7 days */
  readonly maxAgeMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

interface StoredRecord {
  readonly version: 1;
  readonly savedAt: string;
  readonly calls: readonly RecordedCall[];
}

/**
 * Where a paused execution's calls wait for its resume: one JSON file per key (a hash of the
 * thread, the tool call and the program), so a resume on another replica or after a restart on
 * the same data folder finds it. Tool results are in it, as they are in the thread's checkpoints:
 * the folder is the service's alone.
 */
export class ReplayStore {
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ReplayStoreOptions) {
    this.maxAgeMs = options.maxAgeMs ?? 7 * 24 * 3600 * 1000;
    this.now = options.now ?? Date.now;
  }

  /** The calls recorded under `key`; empty when there is no record (or it cannot be read). */
  load(key: string): readonly RecordedCall[] {
    try {
      const stored = JSON.parse(fs.readFileSync(this.fileOf(key), "utf8")) as StoredRecord;
      return stored.version === 1 && Array.isArray(stored.calls) ? stored.calls : [];
    } catch {
      return [];
    }
  }

  save(key: string, calls: readonly RecordedCall[]): void {
    fs.mkdirSync(this.options.dir, { recursive: true, mode: 0o700 });
    this.prune();
    const file = this.fileOf(key);
    const temp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
    const record: StoredRecord = { version: 1, savedAt: new Date(this.now()).toISOString(), calls };
    fs.writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
    fs.renameSync(temp, file);
  }

  remove(key: string): void {
    fs.rmSync(this.fileOf(key), { force: true });
  }

  private fileOf(key: string): string {
    return path.join(this.options.dir, `${crypto.createHash("sha256").update(key).digest("hex")}.json`);
  }

  /** Removes records of pauses never resumed. */
  private prune(): void {
    const oldest = this.now() - this.maxAgeMs;
    for (const name of fs.readdirSync(this.options.dir)) {
      const file = path.join(this.options.dir, name);
      try {
        if (fs.statSync(file).mtimeMs < oldest) fs.rmSync(file, { force: true });
      } catch {
        // gone already
      }
    }
  }
}
