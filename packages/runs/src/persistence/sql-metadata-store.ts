import type { RunSummary } from "../runs/run-figures.js";
import type { RecentRun, RunPatch, RunRecord, RunStatus, ThreadPatch, ThreadRecord, ThreadSearch } from "./agent-records.js";
import { containsAll, type MetadataStore, type ThreadFilter } from "./metadata-store.js";
import { addMissingColumns } from "./migrations.js";
import { addColumnsSql, columnList, createTablesSql, ownerColumn, ownerIndexes, placeholders, recordOf, rowParameters, runQueueColumns, runQueueIndexes, runsTable, runSummaryColumn, runSummaryIndexes, threadsTable } from "./schema.js";
import type { SqlDatabase } from "./sql-database.js";

export interface SqlMetadataStoreOptions {
  /**
   * Whether other agent processes share the database (Postgres replicas). Then closing stale runs
   * at start-up closes only runs no process touched for an hour and leaves threads as they are;
   * otherwise (SQLite, one process) every pending or running run is stale and busy threads are freed.
   */
  readonly shared: boolean;
}

const sortColumns = new Set(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]);
const threadColumns = columnList(threadsTable);
const runColumns = columnList(runsTable);
/** How long a run of a shared database may go untouched before start-up counts it as left behind. */
const sharedStaleMs = 60 * 60 * 1000;

/** Thread and run records in the same database as the checkpoints (tables `thinktank_*`, schema.ts), SQLite or Postgres. */
export class SqlMetadataStore implements MetadataStore {
  readonly #db: SqlDatabase;
  readonly #options: SqlMetadataStoreOptions;

  private constructor(db: SqlDatabase, options: SqlMetadataStoreOptions) {
    this.#db = db;
    this.#options = options;
  }

  /** Creates the tables when missing. */
  static async open(db: SqlDatabase, options: SqlMetadataStoreOptions): Promise<SqlMetadataStore> {
    await db.exec(createTablesSql(db.dialect, [threadsTable, runsTable]));
    // Owners (issue 25) came after the tables: older databases get the column, their rows the operator's id.
    await addMissingColumns(db, threadsTable, [ownerColumn], ownerIndexes);
    await addMissingColumns(db, runsTable, [ownerColumn]);
    // Run figures (the console's activity list) came after them too.
    await addMissingColumns(db, runsTable, [runSummaryColumn], runSummaryIndexes);
    // Replicas coordinate runs through more columns of the same rows (postgres-run-queue.ts); added to tables made before them.
    if (options.shared) await db.exec(addColumnsSql(db.dialect, runsTable, runQueueColumns, runQueueIndexes));
    return new SqlMetadataStore(db, options);
  }

  async createThread(thread: ThreadRecord): Promise<void> {
    await this.#db.run(`INSERT INTO thinktank_threads (${threadColumns}) VALUES (${placeholders(threadsTable)})`, rowParameters(threadsTable, thread));
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const [row] = await this.#db.all<object>(`SELECT ${threadColumns} FROM thinktank_threads WHERE thread_id = ?`, [threadId]);
    return row ? this.#thread(row) : undefined;
  }

  async updateThread(threadId: string, patch: ThreadPatch, now: string): Promise<ThreadRecord | undefined> {
    const current = await this.getThread(threadId);
    if (!current) return undefined;
    const next: ThreadRecord = { ...current, ...patch, updated_at: now };
    const [id, ...rest] = rowParameters(threadsTable, next);
    const assignments = threadsTable.columns.slice(1).map((column) => `"${column.name}" = ?`);
    await this.#db.run(`UPDATE thinktank_threads SET ${assignments.join(", ")} WHERE thread_id = ?`, [...rest, id]);
    return next;
  }

  async setThreadMetadataKey(threadId: string, key: string, value: string): Promise<void> {
    if (this.#db.dialect.name === "postgres") {
      await this.#db.run("UPDATE thinktank_threads SET metadata = jsonb_set(metadata, ARRAY[CAST(? AS TEXT)], to_jsonb(CAST(? AS TEXT))) WHERE thread_id = ?", [key, value, threadId]);
      return;
    }
    await this.#db.run("UPDATE thinktank_threads SET metadata = json_set(metadata, '$.' || json_quote(?), ?) WHERE thread_id = ?", [key, value, threadId]);
  }

  async deleteThread(threadId: string): Promise<boolean> {
    const [, removed] = await this.#db.transaction([
      { sql: "DELETE FROM thinktank_runs WHERE thread_id = ?", parameters: [threadId] },
      { sql: "DELETE FROM thinktank_threads WHERE thread_id = ?", parameters: [threadId] },
    ]);
    return (removed ?? 0) > 0;
  }

  async searchThreads(search: ThreadSearch): Promise<ThreadRecord[]> {
    const column = sortColumns.has(search.sort_by) ? search.sort_by : "created_at";
    const order = search.sort_order === "asc" ? "ASC" : "DESC";
    const filter = this.#filter(search);
    if (!filter) return [];
    const orderBy = `ORDER BY ${column} ${order}, thread_id ${order}`;
    if (filter.inCode) {
      const rows = await this.#db.all<object>(`SELECT ${threadColumns} FROM thinktank_threads ${filter.where} ${orderBy}`, filter.parameters);
      return rows.map((row) => this.#thread(row)).filter(filter.inCode).slice(search.offset, search.offset + search.limit);
    }
    const rows = await this.#db.all<object>(`SELECT ${threadColumns} FROM thinktank_threads ${filter.where} ${orderBy} LIMIT ? OFFSET ?`, [...filter.parameters, search.limit, search.offset]);
    return rows.map((row) => this.#thread(row));
  }

  async countThreads(search: ThreadFilter): Promise<number> {
    const filter = this.#filter(search);
    if (!filter) return 0;
    if (filter.inCode) {
      const rows = await this.#db.all<object>(`SELECT ${threadColumns} FROM thinktank_threads ${filter.where}`, filter.parameters);
      return rows.map((row) => this.#thread(row)).filter(filter.inCode).length;
    }
    const [row] = await this.#db.all<{ count: number | string }>(`SELECT count(*) AS count FROM thinktank_threads ${filter.where}`, filter.parameters);
    return Number(row?.count ?? 0);
  }

  /**
   * The WHERE clause of a thread search; metadata and values filters go into SQL where the dialect
   * has JSON containment, else into `inCode` (JSON-equal top-level keys). Undefined: nothing can match.
   */
  #filter(search: ThreadFilter): { where: string; parameters: unknown[]; inCode?: (thread: ThreadRecord) => boolean } | undefined {
    const clauses: string[] = [];
    const parameters: unknown[] = [];
    if (search.owner !== undefined) {
      clauses.push("owner_id = ?");
      parameters.push(search.owner);
    }
    if (search.status) {
      clauses.push("status = ?");
      parameters.push(search.status);
    }
    if (search.ids) {
      if (search.ids.length === 0) return undefined;
      clauses.push(`thread_id IN (${search.ids.map(() => "?").join(", ")})`);
      parameters.push(...search.ids);
    }
    const json = [
      ["metadata", search.metadata],
      ["values", search.values],
    ] as const;
    const wanted = json.filter(([, filter]) => filter !== undefined && Object.keys(filter).length > 0);
    const contains = this.#db.dialect.jsonContains;
    let inCode: ((thread: ThreadRecord) => boolean) | undefined;
    if (contains) {
      for (const [column, filter] of wanted) {
        clauses.push(contains(`"${column}"`));
        parameters.push(JSON.stringify(filter));
      }
    } else if (wanted.length > 0) {
      inCode = (thread) => containsAll(thread.metadata, search.metadata) && containsAll(thread.values, search.values);
    }
    return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", parameters, inCode };
  }

  async createRun(run: RunRecord): Promise<void> {
    await this.#db.run(`INSERT INTO thinktank_runs (${runColumns}) VALUES (${placeholders(runsTable)})`, rowParameters(runsTable, run));
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const [row] = await this.#db.all<object>(`SELECT ${runColumns} FROM thinktank_runs WHERE run_id = ?`, [runId]);
    return row ? recordOf<RunRecord>(runsTable, this.#db.dialect, row) : undefined;
  }

  async updateRun(runId: string, patch: RunPatch, now: string): Promise<RunRecord | undefined> {
    if (patch.status) await this.#db.run("UPDATE thinktank_runs SET status = ?, updated_at = ? WHERE run_id = ?", [patch.status, now, runId]);
    return this.getRun(runId);
  }

  async deleteRun(runId: string): Promise<boolean> {
    return (await this.#db.run("DELETE FROM thinktank_runs WHERE run_id = ?", [runId])) > 0;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    const statusClause = options.status ? "AND status = ?" : "";
    const parameters: unknown[] = [threadId, ...(options.status ? [options.status] : []), options.limit, options.offset];
    const rows = await this.#db.all<object>(`SELECT ${runColumns} FROM thinktank_runs WHERE thread_id = ? ${statusClause} ORDER BY created_at DESC, run_id DESC LIMIT ? OFFSET ?`, parameters);
    return rows.map((row) => recordOf<RunRecord>(runsTable, this.#db.dialect, row));
  }

  async recordRunSummary(runId: string, summary: RunSummary): Promise<void> {
    await this.#db.run("UPDATE thinktank_runs SET summary = ? WHERE run_id = ?", [JSON.stringify(summary), runId]);
  }

  async listRecentRuns(options: { limit: number; owner?: string }): Promise<RecentRun[]> {
    const mine = options.owner === undefined ? "" : "WHERE thread_id IN (SELECT thread_id FROM thinktank_threads WHERE owner_id = ?)";
    const parameters: unknown[] = [...(options.owner === undefined ? [] : [options.owner]), options.limit];
    const rows = await this.#db.all<{ summary?: unknown }>(`SELECT ${runColumns}, summary FROM thinktank_runs ${mine} ORDER BY created_at DESC, run_id DESC LIMIT ?`, parameters);
    return rows.map((row) => {
      const record = recordOf<RunRecord>(runsTable, this.#db.dialect, row);
      const summary = typeof row.summary === "string" ? (JSON.parse(row.summary) as RunSummary) : (row.summary as RunSummary | null | undefined);
      return summary ? { ...record, summary } : record;
    });
  }

  async closeStaleRuns(now: string): Promise<number> {
    if (this.#options.shared) {
      // Several replicas may share the database: only runs no replica touched for a while are stale.
      // Runs a replica heartbeats are its run queue's business (a stale heartbeat is found within seconds).
      const before = new Date(Date.parse(now) - sharedStaleMs).toISOString();
      return this.#db.run("UPDATE thinktank_runs SET status = 'error', updated_at = ? WHERE status IN ('pending', 'running') AND updated_at < ? AND heartbeat_at IS NULL", [now, before]);
    }
    const [closed] = await this.#db.transaction([
      { sql: "UPDATE thinktank_runs SET status = 'error', updated_at = ? WHERE status IN ('pending', 'running')", parameters: [now] },
      { sql: "UPDATE thinktank_threads SET status = CASE WHEN interrupts = '{}' THEN 'idle' ELSE 'interrupted' END, updated_at = ? WHERE status = 'busy'", parameters: [now] },
    ]);
    return closed ?? 0;
  }

  async close(): Promise<void> {
    // The connection belongs to whoever opened it (agent-store.ts closes it).
  }

  #thread(row: object): ThreadRecord {
    return recordOf<ThreadRecord>(threadsTable, this.#db.dialect, row);
  }
}
