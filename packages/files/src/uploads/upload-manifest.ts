import fs from "node:fs";
import path from "node:path";
import { writeFileDurably } from "@thinktank/core";

/** One uploaded file as the manifest (`<data_dir>/user-data/<thread>/uploads.jsonl`) records it. */
export interface UploadRecord {
  /** 1, 2, ... per thread, increasing; never reused, also after a delete. */
  readonly seq: number;
  /** The stored name (made safe, perhaps with a numbered suffix). */
  readonly name: string;
  /** As the model sees it: /mnt/user-data/uploads/<name>. */
  readonly path: string;
  readonly size: number;
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  readonly mime_type: string;
  /** ISO time of the upload. */
  readonly uploaded_at: string;
  /** The Markdown side file, when a converter made one: its virtual path and size. */
  readonly converted?: { readonly path: string; readonly size: number };
  /** Why no Markdown side file was made, when a converter accepted the file and failed. */
  readonly conversion_error?: string;
}

/**
 * The per-thread list of uploads, one JSON line each, appended in seq order. Writers serialize per
 * thread (ThreadFiles holds the thread's turn); readers read the file as it is. A line that does
 * not parse (a torn write after a crash) is skipped.
 */
export class UploadManifest {
  constructor(private readonly file: string) {}

  async all(): Promise<UploadRecord[]> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const records: UploadRecord[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const record = JSON.parse(line) as UploadRecord;
        if (typeof record.seq === "number" && typeof record.name === "string") records.push(record);
      } catch {
        // a torn last line: skipped
      }
    }
    return records;
  }

  /** Entries with seq greater than `seq`, in order. */
  async since(seq: number): Promise<UploadRecord[]> {
    return (await this.all()).filter((record) => record.seq > seq);
  }

  /** The highest seq recorded, or the one kept in `<manifest>.seq` after deletes; 0 for none. */
  async lastSeq(): Promise<number> {
    const records = await this.all();
    const kept = Number((await fs.promises.readFile(`${this.file}.seq`, "utf8").catch(() => "0")).trim()) || 0;
    return Math.max(kept, ...records.map((record) => record.seq));
  }

  /** Appends records (their seq already given by the caller, above lastSeq). The caller holds the thread's turn. */
  async append(records: readonly UploadRecord[]): Promise<void> {
    if (records.length === 0) return;
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    await fs.promises.appendFile(this.file, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
  }

  /**
   * After a file of uploads/ was deleted: drops the entry of that upload, or the `converted` of the
   * upload whose Markdown side file it was. The seq counter stays (kept in `<manifest>.seq`), so seqs
   * are never reused. The caller holds the thread's turn.
   */
  async remove(name: string): Promise<boolean> {
    const records = await this.all();
    let changed = false;
    const kept: UploadRecord[] = [];
    for (const record of records) {
      if (record.name === name) changed = true;
      else if (record.converted && record.converted.path.split("/").pop() === name) {
        const { converted: _converted, ...rest } = record;
        kept.push(rest);
        changed = true;
      } else kept.push(record);
    }
    if (!changed) return false;
    const last = Math.max(0, ...records.map((record) => record.seq));
    await writeFileDurably(`${this.file}.seq`, `${last}\n`);
    await writeFileDurably(this.file, kept.map((record) => `${JSON.stringify(record)}\n`).join(""));
    return true;
  }
}
