import type pg from "pg";
import type { JsonObject, RunPatch, RunRecord, RunStatus, ThreadPatch, ThreadRecord, ThreadSearch } from "./agent-records.js";
import type { MetadataStore } from "./metadata-store.js";

const schema = `
CREATE TABLE IF NOT EXISTS thinktank_threads (
  thread_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  state_updated_at TEXT NOT NULL,
  metadata JSONB NOT NULL,
  status TEXT NOT NULL,
  "values" JSONB,
  interrupts JSONB NOT NULL,
  error JSONB
);
CREATE TABLE IF NOT EXISTS thinktank_runs (
  run_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  assistant_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,
  metadata JSONB NOT NULL,
  kwargs JSONB NOT NULL,
  multitask_strategy TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS thinktank_runs_thread ON thinktank_runs (thread_id, created_at);
`;

const sortColumns = new Set(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]);
const threadColumns = `thread_id, created_at, updated_at, state_updated_at, metadata, status, "values", interrupts, error`;

/** Thread and run records in Postgres, for several agent replicas sharing one database. */
export class PostgresMetadataStore implements MetadataStore {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  static async open(pool: pg.Pool): Promise<PostgresMetadataStore> {
    await pool.query(schema);
    return new PostgresMetadataStore(pool);
  }

  async createThread(thread: ThreadRecord): Promise<void> {
    await this.#pool.query(`INSERT INTO thinktank_threads (${threadColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, threadParameters(thread));
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const result = await this.#pool.query(`SELECT ${threadColumns} FROM thinktank_threads WHERE thread_id = $1`, [threadId]);
    return result.rows[0] as ThreadRecord | undefined;
  }

  async updateThread(threadId: string, patch: ThreadPatch, now: string): Promise<ThreadRecord | undefined> {
    const current = await this.getThread(threadId);
    if (!current) return undefined;
    const next: ThreadRecord = { ...current, ...patch, updated_at: now };
    await this.#pool.query(
      `UPDATE thinktank_threads SET created_at = $2, updated_at = $3, state_updated_at = $4, metadata = $5, status = $6, "values" = $7, interrupts = $8, error = $9 WHERE thread_id = $1`,
      threadParameters(next),
    );
    return next;
  }

  async deleteThread(threadId: string): Promise<boolean> {
    await this.#pool.query("DELETE FROM thinktank_runs WHERE thread_id = $1", [threadId]);
    const result = await this.#pool.query("DELETE FROM thinktank_threads WHERE thread_id = $1", [threadId]);
    return (result.rowCount ?? 0) > 0;
  }

  async searchThreads(search: ThreadSearch): Promise<ThreadRecord[]> {
    const column = sortColumns.has(search.sort_by) ? search.sort_by : "created_at";
    const order = search.sort_order === "asc" ? "ASC" : "DESC";
    const { where, parameters } = threadFilter(search);
    parameters.push(search.limit, search.offset);
    const result = await this.#pool.query(
      `SELECT ${threadColumns} FROM thinktank_threads ${where} ORDER BY ${column} ${order}, thread_id ${order} LIMIT $${parameters.length - 1} OFFSET $${parameters.length}`,
      parameters,
    );
    return result.rows as ThreadRecord[];
  }

  async countThreads(search: Omit<ThreadSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    const { where, parameters } = threadFilter(search);
    const result = await this.#pool.query(`SELECT count(*)::int AS count FROM thinktank_threads ${where}`, parameters);
    return (result.rows[0] as { count: number }).count;
  }

  async createRun(run: RunRecord): Promise<void> {
    await this.#pool.query(
      `INSERT INTO thinktank_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [run.run_id, run.thread_id, run.assistant_id, run.created_at, run.updated_at, run.status, JSON.stringify(run.metadata), JSON.stringify(run.kwargs), run.multitask_strategy],
    );
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const result = await this.#pool.query("SELECT * FROM thinktank_runs WHERE run_id = $1", [runId]);
    return result.rows[0] as RunRecord | undefined;
  }

  async updateRun(runId: string, patch: RunPatch, now: string): Promise<RunRecord | undefined> {
    if (patch.status) await this.#pool.query("UPDATE thinktank_runs SET status = $1, updated_at = $2 WHERE run_id = $3", [patch.status, now, runId]);
    return this.getRun(runId);
  }

  async deleteRun(runId: string): Promise<boolean> {
    return ((await this.#pool.query("DELETE FROM thinktank_runs WHERE run_id = $1", [runId])).rowCount ?? 0) > 0;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    const parameters: unknown[] = [threadId];
    let statusClause = "";
    if (options.status) {
      parameters.push(options.status);
      statusClause = "AND status = $2";
    }
    parameters.push(options.limit, options.offset);
    const result = await this.#pool.query(
      `SELECT * FROM thinktank_runs WHERE thread_id = $1 ${statusClause} ORDER BY created_at DESC, run_id DESC LIMIT $${parameters.length - 1} OFFSET $${parameters.length}`,
      parameters,
    );
    return result.rows as RunRecord[];
  }

  async closeStaleRuns(now: string): Promise<number> {
    // Several replicas may share the database: only runs no replica touched for a while are stale.
    const result = await this.#pool.query("UPDATE thinktank_runs SET status = 'error', updated_at = $1 WHERE status IN ('pending', 'running') AND updated_at < $2", [
      now,
      new Date(Date.parse(now) - 60 * 60 * 1000).toISOString(),
    ]);
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    // The pool belongs to whoever opened it (open-postgres-store ends it).
  }
}

function threadParameters(thread: ThreadRecord): unknown[] {
  return [
    thread.thread_id,
    thread.created_at,
    thread.updated_at,
    thread.state_updated_at,
    JSON.stringify(thread.metadata),
    thread.status,
    thread.values === null ? null : JSON.stringify(thread.values),
    JSON.stringify(thread.interrupts),
    thread.error === null ? null : JSON.stringify(thread.error),
  ];
}

function threadFilter(search: { metadata?: JsonObject; values?: JsonObject; status?: string; ids?: readonly string[] }): { where: string; parameters: unknown[] } {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  if (search.status) {
    parameters.push(search.status);
    clauses.push(`status = $${parameters.length}`);
  }
  if (search.ids) {
    parameters.push([...search.ids]);
    clauses.push(`thread_id = ANY($${parameters.length})`);
  }
  if (search.metadata && Object.keys(search.metadata).length > 0) {
    parameters.push(JSON.stringify(search.metadata));
    clauses.push(`metadata @> $${parameters.length}::jsonb`);
  }
  if (search.values && Object.keys(search.values).length > 0) {
    parameters.push(JSON.stringify(search.values));
    clauses.push(`"values" @> $${parameters.length}::jsonb`);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", parameters };
}
