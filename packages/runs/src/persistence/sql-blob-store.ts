import { nextTurn } from "../runs/fair-turns.js";
import { decodeChunk, type BlobRef } from "./blob-refs.js";
import { checkpointBlobsTable, createTablesSql } from "./schema.js";
import type { SqlDatabase } from "./sql-database.js";

const table = checkpointBlobsTable.name;
/** Chunks one read fetches. */
const chunksPerRead = 4;

export interface SqlBlobStoreOptions {
  /**
   * Bytes of recently read chunks kept in memory: a history page lists the same messages in each of
   * its states, and clients polling one thread read the same blobs. Chunks are named by content, so
   * a kept one is never stale. @default 32 MiB
   */
  readonly cacheBytes?: number;
}

/**
 * The large strings of a thread's checkpoints (blob-refs.ts), once per thread and hash, in chunks
 * (`thinktank_checkpoint_blobs`), on SQLite or Postgres. Every statement reads or writes one chunk
 * (a slice of 128 Ki UTF-16 code units) and waits its turn first (fair-turns.ts), so no blob holds the event loop longer
 * than a chunk takes, however large it is.
 */
export class SqlBlobStore {
  readonly #db: SqlDatabase;
  readonly #cache = new Map<string, Buffer>();
  readonly #cacheBytes: number;
  #cached = 0;

  private constructor(db: SqlDatabase, options: SqlBlobStoreOptions) {
    this.#db = db;
    this.#cacheBytes = options.cacheBytes ?? 32 * 1024 * 1024;
  }

  /** Creates the table when missing (on Postgres under the schema lock, with the other tables). */
  static async open(db: SqlDatabase, options: SqlBlobStoreOptions = {}): Promise<SqlBlobStore> {
    await db.exec(createTablesSql(db.dialect, [checkpointBlobsTable]));
    return new SqlBlobStore(db, options);
  }

  /**
   * Stores a blob's chunks for a thread unless it is there already (its last chunk is: chunks are
   * written in order, so a write cut short is completed by the next one).
   */
  async write(threadId: string, ref: BlobRef, chunks: readonly Buffer[]): Promise<void> {
    const last = chunks.length - 1;
    if ((await this.#db.all(`SELECT chunk FROM ${table} WHERE thread_id = ? AND sha256 = ? AND chunk = ?`, [threadId, ref.sha256, last])).length > 0) return;
    for (const [index, chunk] of chunks.entries()) {
      await nextTurn();
      await this.#db.run(`INSERT INTO ${table} (thread_id, sha256, chunk, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, [threadId, ref.sha256, index, chunk]);
    }
  }

  /**
   * A blob's stored chunks (JSON string literals) in order, up to four a statement (at most ~0.5 MB of
   * ASCII; fewer round trips on Postgres), a turn before each statement; nothing for a blob the thread
   * does not have. Chunks read lately come from memory.
   */
  async *chunks(threadId: string, sha256: string): AsyncGenerator<Buffer> {
    for (let index = 0; ; ) {
      const key = (chunk: number) => `${threadId}\n${sha256}\n${chunk}`;
      const kept = this.#cache.get(key(index));
      if (kept) {
        // Most recently used last: the Map's order is the eviction order.
        this.#cache.delete(key(index));
        this.#cache.set(key(index), kept);
        yield kept;
        index += 1;
        continue;
      }
      await nextTurn();
      const rows = await this.#db.all<{ chunk: number; data: Buffer }>(
        `SELECT chunk, data FROM ${table} WHERE thread_id = ? AND sha256 = ? AND chunk >= ? AND chunk < ? ORDER BY chunk`,
        [threadId, sha256, index, index + chunksPerRead],
      );
      for (const row of rows) {
        if (Number(row.chunk) !== index) return;
        this.#keep(key(index), row.data);
        yield row.data;
        index += 1;
      }
      if (rows.length < chunksPerRead) return;
    }
  }

  #keep(key: string, data: Buffer): void {
    if (data.length > this.#cacheBytes / 4) return;
    this.#cache.set(key, data);
    this.#cached += data.length;
    for (const [oldest, kept] of this.#cache) {
      if (this.#cached <= this.#cacheBytes) break;
      this.#cache.delete(oldest);
      this.#cached -= kept.length;
    }
  }

  /** The string a blob holds, or undefined when the thread has no such blob. */
  async read(threadId: string, sha256: string): Promise<string | undefined> {
    const parts: string[] = [];
    for await (const chunk of this.chunks(threadId, sha256)) parts.push(decodeChunk(chunk));
    return parts.length === 0 ? undefined : parts.join("");
  }

  /** Removes a thread's blobs, one blob at a time. */
  async deleteThread(threadId: string): Promise<void> {
    for (const [key, kept] of this.#cache) {
      if (!key.startsWith(`${threadId}\n`)) continue;
      this.#cache.delete(key);
      this.#cached -= kept.length;
    }
    for (const { sha256 } of await this.#db.all<{ sha256: string }>(`SELECT DISTINCT sha256 FROM ${table} WHERE thread_id = ?`, [threadId])) {
      await nextTurn();
      await this.#db.run(`DELETE FROM ${table} WHERE thread_id = ? AND sha256 = ?`, [threadId, sha256]);
    }
  }

  /** Gives thread `to` the blobs of thread `from` (a copied thread's checkpoints name them), one chunk at a time. */
  async copyThread(from: string, to: string): Promise<void> {
    const keys = await this.#db.all<{ sha256: string; chunk: number }>(`SELECT sha256, chunk FROM ${table} WHERE thread_id = ? ORDER BY sha256, chunk`, [from]);
    for (const { sha256, chunk } of keys) {
      await nextTurn();
      await this.#db.run(
        `INSERT INTO ${table} (thread_id, sha256, chunk, data) SELECT CAST(? AS TEXT), sha256, chunk, data FROM ${table} WHERE thread_id = ? AND sha256 = ? AND chunk = ? ON CONFLICT DO NOTHING`,
        [to, from, sha256, Number(chunk)],
      );
    }
  }

  /** How many bytes a thread's blobs hold (for measurements). */
  async threadBytes(threadId: string): Promise<number> {
    const [row] = await this.#db.all<{ bytes: number | string | null }>(`SELECT SUM(LENGTH(data)) AS bytes FROM ${table} WHERE thread_id = ?`, [threadId]);
    return Number(row?.bytes ?? 0);
  }
}
