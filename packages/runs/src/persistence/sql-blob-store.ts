import { nextTurn } from "../runs/fair-turns.js";
import { decodeChunk, type BlobRef } from "./blob-refs.js";
import { checkpointBlobsTable, createTablesSql } from "./schema.js";
import type { SqlDatabase } from "./sql-database.js";

const table = checkpointBlobsTable.name;

/**
 * The large strings of a thread's checkpoints (blob-refs.ts), once per thread and hash, in chunks
 * (`thinktank_checkpoint_blobs`), on SQLite or Postgres. Every statement reads or writes one chunk
 * (at most ~1.5 MB) and waits its turn first (fair-turns.ts), so no blob holds the event loop longer
 * than a chunk takes, however large it is.
 */
export class SqlBlobStore {
  readonly #db: SqlDatabase;

  private constructor(db: SqlDatabase) {
    this.#db = db;
  }

  /** Creates the table when missing (on Postgres under the schema lock, with the other tables). */
  static async open(db: SqlDatabase): Promise<SqlBlobStore> {
    await db.exec(createTablesSql(db.dialect, [checkpointBlobsTable]));
    return new SqlBlobStore(db);
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

  /** A blob's stored chunks (JSON string literals) in order, one read each; nothing for a blob the thread does not have. */
  async *chunks(threadId: string, sha256: string): AsyncGenerator<Buffer> {
    for (let index = 0; ; index++) {
      await nextTurn();
      const [row] = await this.#db.all<{ data: Buffer }>(`SELECT data FROM ${table} WHERE thread_id = ? AND sha256 = ? AND chunk = ?`, [threadId, sha256, index]);
      if (!row) return;
      yield Buffer.from(row.data);
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
