import type { Database } from "better-sqlite3";
import type { JsonObject, RunPatch, RunRecord, RunStatus, ThreadPatch, ThreadRecord, ThreadSearch } from "./agent-records.js";
import { containsAll, type MetadataStore } from "./metadata-store.js";

const schema = `
CREATE TABLE IF NOT EXISTS thinktank_threads (
  thread_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  state_updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  status TEXT NOT NULL,
  "values" TEXT,
  interrupts TEXT NOT NULL,
  error TEXT
);
CREATE TABLE IF NOT EXISTS thinktank_runs (
  run_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  assistant_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,
  metadata TEXT NOT NULL,
  kwargs TEXT NOT NULL,
  multitask_strategy TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS thinktank_runs_thread ON thinktank_runs (thread_id, created_at);
`;

interface ThreadRow {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: string;
  status: string;
  values: string | null;
  interrupts: string;
  error: string | null;
}

interface RunRow extends Omit<RunRecord, "metadata" | "kwargs"> {
  metadata: string;
  kwargs: string;
}

const sortColumns = new Set(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]);

/** Thread and run records in the same SQLite database as the checkpoints (tables `thinktank_*`). */
export class SqliteMetadataStore implements MetadataStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    db.exec(schema);
  }

  async createThread(thread: ThreadRecord): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO thinktank_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error)
         VALUES (@thread_id, @created_at, @updated_at, @state_updated_at, @metadata, @status, @values, @interrupts, @error)`,
      )
      .run(toThreadRow(thread));
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const row = this.#db.prepare("SELECT * FROM thinktank_threads WHERE thread_id = ?").get(threadId) as ThreadRow | undefined;
    return row ? fromThreadRow(row) : undefined;
  }

  async updateThread(threadId: string, patch: ThreadPatch, now: string): Promise<ThreadRecord | undefined> {
    const current = await this.getThread(threadId);
    if (!current) return undefined;
    const next: ThreadRecord = { ...current, ...patch, updated_at: now };
    this.#db
      .prepare(
        `UPDATE thinktank_threads SET updated_at = @updated_at, state_updated_at = @state_updated_at, metadata = @metadata,
         status = @status, "values" = @values, interrupts = @interrupts, error = @error WHERE thread_id = @thread_id`,
      )
      .run(toThreadRow(next));
    return next;
  }

  async deleteThread(threadId: string): Promise<boolean> {
    const removed = this.#db.transaction(() => {
      this.#db.prepare("DELETE FROM thinktank_runs WHERE thread_id = ?").run(threadId);
      return this.#db.prepare("DELETE FROM thinktank_threads WHERE thread_id = ?").run(threadId).changes;
    })();
    return removed > 0;
  }

  async searchThreads(search: ThreadSearch): Promise<ThreadRecord[]> {
    const column = sortColumns.has(search.sort_by) ? search.sort_by : "created_at";
    const order = search.sort_order === "asc" ? "ASC" : "DESC";
    return this.#matching(search, `ORDER BY ${column} ${order}, thread_id ${order}`).slice(search.offset, search.offset + search.limit);
  }

  async countThreads(search: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    return this.#matching(search, "").length;
  }

  #matching(search: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">, orderBy: string): ThreadRecord[] {
    const where: string[] = [];
    const parameters: unknown[] = [];
    if (search.status) {
      where.push("status = ?");
      parameters.push(search.status);
    }
    if (search.ids) {
      if (search.ids.length === 0) return [];
      where.push(`thread_id IN (${search.ids.map(() => "?").join(", ")})`);
      parameters.push(...search.ids);
    }
    const sql = `SELECT * FROM thinktank_threads ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ${orderBy}`;
    const rows = this.#db.prepare(sql).all(...parameters) as ThreadRow[];
    // Metadata and values filters compare JSON values; done here so any JSON type matches exactly.
    return rows.map(fromThreadRow).filter((thread) => containsAll(thread.metadata, search.metadata) && containsAll(thread.values, search.values));
  }

  async createRun(run: RunRecord): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO thinktank_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy)
         VALUES (@run_id, @thread_id, @assistant_id, @created_at, @updated_at, @status, @metadata, @kwargs, @multitask_strategy)`,
      )
      .run({ ...run, metadata: JSON.stringify(run.metadata), kwargs: JSON.stringify(run.kwargs) });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const row = this.#db.prepare("SELECT * FROM thinktank_runs WHERE run_id = ?").get(runId) as RunRow | undefined;
    return row ? fromRunRow(row) : undefined;
  }

  async updateRun(runId: string, patch: RunPatch, now: string): Promise<RunRecord | undefined> {
    if (patch.status) this.#db.prepare("UPDATE thinktank_runs SET status = ?, updated_at = ? WHERE run_id = ?").run(patch.status, now, runId);
    return this.getRun(runId);
  }

  async deleteRun(runId: string): Promise<boolean> {
    return this.#db.prepare("DELETE FROM thinktank_runs WHERE run_id = ?").run(runId).changes > 0;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    const statusClause = options.status ? "AND status = ?" : "";
    const parameters: unknown[] = [threadId, ...(options.status ? [options.status] : []), options.limit, options.offset];
    const rows = this.#db
      .prepare(`SELECT * FROM thinktank_runs WHERE thread_id = ? ${statusClause} ORDER BY created_at DESC, run_id DESC LIMIT ? OFFSET ?`)
      .all(...parameters) as RunRow[];
    return rows.map(fromRunRow);
  }

  async closeStaleRuns(now: string): Promise<number> {
    return this.#db.transaction(() => {
      const closed = this.#db.prepare("UPDATE thinktank_runs SET status = 'error', updated_at = ? WHERE status IN ('pending', 'running')").run(now).changes;
      this.#db
        .prepare("UPDATE thinktank_threads SET status = CASE WHEN interrupts = '{}' THEN 'idle' ELSE 'interrupted' END, updated_at = ? WHERE status = 'busy'")
        .run(now);
      return closed;
    })();
  }

  async close(): Promise<void> {
    // The database connection belongs to whoever opened it (open-agent-store closes it).
  }
}

function toThreadRow(thread: ThreadRecord): ThreadRow {
  return {
    ...thread,
    metadata: JSON.stringify(thread.metadata),
    values: thread.values === null ? null : JSON.stringify(thread.values),
    interrupts: JSON.stringify(thread.interrupts),
    error: thread.error === null ? null : JSON.stringify(thread.error),
  };
}

function fromThreadRow(row: ThreadRow): ThreadRecord {
  return {
    ...row,
    status: row.status as ThreadRecord["status"],
    metadata: JSON.parse(row.metadata) as JsonObject,
    values: row.values === null ? null : (JSON.parse(row.values) as JsonObject),
    interrupts: JSON.parse(row.interrupts) as Record<string, unknown[]>,
    error: row.error === null ? null : (JSON.parse(row.error) as ThreadRecord["error"]),
  };
}

function fromRunRow(row: RunRow): RunRecord {
  return { ...row, metadata: JSON.parse(row.metadata) as JsonObject, kwargs: JSON.parse(row.kwargs) as JsonObject };
}
