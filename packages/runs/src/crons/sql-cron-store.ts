import { containsAll } from "../persistence/metadata-store.js";
import { columnList, createTablesSql, cronsTable, placeholders, recordOf, rowParameters } from "../persistence/schema.js";
import type { SqlDatabase, SqlStatement } from "../persistence/sql-database.js";
import type { CronFilter, CronPause, CronRow, CronSearch } from "./cron-record.js";

const columns = columnList(cronsTable);
const sortColumns: Record<CronSearch["sort_by"], string> = {
  cron_id: "cron_id",
  assistant_id: "assistant_id",
  thread_id: "thread_id",
  created_at: "created_at",
  updated_at: "updated_at",
  next_run_date: "next_run_at",
};
/** The channel replicas hear cron changes on (Postgres): a new or changed schedule re-plans every scheduler's timer. */
export const cronsChannel = "thinktank_crons";

/** Fields a PATCH may change (the claim and the failure count are the scheduler's). */
export type CronChange = Partial<Pick<CronRow, "schedule" | "timezone" | "end_time" | "on_run_completed" | "payload" | "metadata" | "enabled" | "next_run_at" | "paused_reason" | "failures" | "updated_at">>;

/** `?` per column cast to its type: Postgres cannot tell the types of an INSERT … SELECT's parameters. */
const typedPlaceholders = cronsTable.columns
  .map((column) => `CAST(? AS ${{ json: "JSONB", real: "DOUBLE PRECISION", integer: "INTEGER", text: "TEXT", bytes: "BYTEA" }[column.type]})`)
  .join(", ");

/** A fire's run id: a UUID made by the database, per row (Postgres 13+ gen_random_uuid; SQLite from randomblob). */
const newRunId = {
  postgres: "CAST(gen_random_uuid() AS TEXT)",
  sqlite: "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(6)))",
} as const;

/**
 * Crons in the threads database (`thinktank_crons`), SQLite or Postgres (README.md, "Crons").
 * A fire is claimed on its row (`claimDue`): the claim names the replica, when, and the run id
 * the fire creates, so a replica that dies mid-fire leaves a claim another takes over once stale,
 * with the same run id (a run created twice fails on its key). `finishFire` moves the row to its
 * next time and lets the claim go.
 */
export class SqlCronStore {
  readonly #db: SqlDatabase;

  private constructor(db: SqlDatabase) {
    this.#db = db;
  }

  /** Creates the table when missing (on Postgres under the schema lock: the caller holds it). */
  static async open(db: SqlDatabase): Promise<SqlCronStore> {
    await db.exec(createTablesSql(db.dialect, [cronsTable]));
    return new SqlCronStore(db);
  }

  /**
   * Inserts the cron unless its owner has `maxPerOwner` already (false then). On Postgres the count
   * and the insert hold the owner's advisory lock, so replicas creating at once cannot pass the limit.
   */
  async insert(row: CronRow, maxPerOwner: number): Promise<boolean> {
    const postgres = this.#db.dialect.name === "postgres";
    const statements: SqlStatement[] = [
      ...(postgres ? [{ sql: "SELECT pg_advisory_xact_lock(hashtextextended(CAST(? AS TEXT), 0))", parameters: [`thinktank-crons:${row.owner_id}`] }] : []),
      {
        sql: `INSERT INTO thinktank_crons (${columns}) SELECT ${postgres ? typedPlaceholders : placeholders(cronsTable)} WHERE (SELECT COUNT(*) FROM thinktank_crons WHERE owner_id = ?) < ?`,
        parameters: [...rowParameters(cronsTable, row), row.owner_id, maxPerOwner],
      },
      ...(postgres ? [{ sql: "SELECT pg_notify(?, 'changed')", parameters: [cronsChannel] }] : []),
    ];
    const changes = await this.#db.transaction(statements);
    return (changes[postgres ? 1 : 0] ?? 0) > 0;
  }

  async get(cronId: string): Promise<CronRow | undefined> {
    const [row] = await this.#db.all<object>(`SELECT ${columns} FROM thinktank_crons WHERE cron_id = ?`, [cronId]);
    return row ? this.#row(row) : undefined;
  }

  async search(search: CronSearch): Promise<CronRow[]> {
    const filter = this.#filter(search);
    const order = search.sort_order === "asc" ? "ASC" : "DESC";
    const orderBy = `ORDER BY ${sortColumns[search.sort_by] ?? "created_at"} ${order}, cron_id ${order}`;
    if (filter.inCode) {
      const rows = (await this.#db.all<object>(`SELECT ${columns} FROM thinktank_crons ${filter.where} ${orderBy}`, filter.parameters)).map((row) => this.#row(row));
      return rows.filter(filter.inCode).slice(search.offset, search.offset + search.limit);
    }
    const rows = await this.#db.all<object>(`SELECT ${columns} FROM thinktank_crons ${filter.where} ${orderBy} LIMIT ? OFFSET ?`, [...filter.parameters, search.limit, search.offset]);
    return rows.map((row) => this.#row(row));
  }

  async count(filter: CronFilter): Promise<number> {
    const where = this.#filter(filter);
    if (where.inCode) return (await this.#db.all<object>(`SELECT ${columns} FROM thinktank_crons ${where.where}`, where.parameters)).map((row) => this.#row(row)).filter(where.inCode).length;
    const [row] = await this.#db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM thinktank_crons ${where.where}`, where.parameters);
    return Number(row?.n ?? 0);
  }

  /** Writes the changed fields (never the claim), tells the other replicas; the row after, or undefined when it is gone. */
  async update(cronId: string, change: CronChange): Promise<CronRow | undefined> {
    const entries = Object.entries(change).filter(([, value]) => value !== undefined);
    if (entries.length > 0) {
      const json = new Set(cronsTable.columns.filter((column) => column.type === "json").map((column) => column.name));
      const assignments = entries.map(([name]) => `"${name}" = ?`).join(", ");
      const values = entries.map(([name, value]) => (json.has(name) && value !== null ? JSON.stringify(value) : value));
      await this.#db.run(`UPDATE thinktank_crons SET ${assignments} WHERE cron_id = ?`, [...values, cronId]);
      await this.#notify();
    }
    return this.get(cronId);
  }

  async delete(cronId: string): Promise<boolean> {
    const removed = await this.#db.run("DELETE FROM thinktank_crons WHERE cron_id = ?", [cronId]);
    if (removed > 0) await this.#notify();
    return removed > 0;
  }

  /**
   * Claims up to `limit` crons whose time came (`next_run_at <= now`) and nobody fires, or whose
   * claim by another replica is older than `staleBefore` (epoch ms): each row then names this
   * replica, `now`, and a run id (the one a stale claim chose is kept). Oldest times first. On
   * Postgres the rows are taken FOR UPDATE SKIP LOCKED, so replicas claiming at once split them.
   */
  async claimDue(replica: string, now: number, staleBefore: number, limit: number): Promise<CronRow[]> {
    const dialect = this.#db.dialect.name;
    const due = `enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? AND (claim_replica IS NULL OR (claim_replica <> ? AND claim_at < ?))`;
    const pick = `SELECT cron_id FROM thinktank_crons WHERE ${due} ORDER BY next_run_at LIMIT ?${dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : ""}`;
    const rows = await this.#db.all<object>(
      `UPDATE thinktank_crons SET claim_replica = ?, claim_at = ?, claim_run_id = COALESCE(claim_run_id, ${newRunId[dialect]}) WHERE cron_id IN (${pick}) RETURNING ${columns}`,
      [replica, now, now, replica, staleBefore, limit],
    );
    return rows.map((row) => this.#row(row)).sort((a, b) => (a.next_run_at ?? 0) - (b.next_run_at ?? 0));
  }

  /**
   * Ends this replica's claim of the fire for `firedFor`: the row moves to `next` (null: no more
   * times) unless a PATCH moved it meanwhile, and names the run made (if any). False when the
   * claim is no longer this replica's (another took it over).
   */
  async finishFire(cronId: string, replica: string, firedFor: number, next: number | null, runId: string | null, now: string): Promise<boolean> {
    const changed = await this.#db.run(
      `UPDATE thinktank_crons SET next_run_at = CASE WHEN next_run_at = ? THEN ? ELSE next_run_at END, last_run_id = COALESCE(?, last_run_id),
         claim_replica = NULL, claim_at = NULL, claim_run_id = NULL, updated_at = ? WHERE cron_id = ? AND claim_replica = ?`,
      [firedFor, next, runId, now, cronId, replica],
    );
    return changed > 0;
  }

  /**
   * Counts a fire's outcome: a success clears the failures; a failure adds one, and the cron is
   * paused with `failure` as the reason when they reach `maxFailures`. Returns whether it paused.
   */
  async recordOutcome(cronId: string, failure: CronPause | undefined, maxFailures: number): Promise<boolean> {
    if (!failure) {
      await this.#db.run("UPDATE thinktank_crons SET failures = 0 WHERE cron_id = ? AND failures <> 0", [cronId]);
      return false;
    }
    const [, paused] = await this.#db.transaction([
      { sql: "UPDATE thinktank_crons SET failures = failures + 1 WHERE cron_id = ?", parameters: [cronId] },
      {
        sql: "UPDATE thinktank_crons SET enabled = 0, next_run_at = NULL, paused_reason = ?, updated_at = ? WHERE cron_id = ? AND enabled = 1 AND failures >= ?",
        parameters: [JSON.stringify({ ...failure, message: `failed ${maxFailures} times in a row (crons.max_consecutive_failures); the last: ${failure.message}` }), failure.at, cronId, maxFailures],
      },
    ]);
    if ((paused ?? 0) > 0) await this.#notify();
    return (paused ?? 0) > 0;
  }

  /** Pauses the cron at once with the reason (its thread, assistant or owner is gone). */
  async pause(cronId: string, reason: CronPause): Promise<void> {
    await this.#db.run("UPDATE thinktank_crons SET enabled = 0, next_run_at = NULL, paused_reason = ?, updated_at = ? WHERE cron_id = ?", [JSON.stringify(reason), reason.at, cronId]);
    await this.#notify();
  }

  /** When the scheduler should look next (epoch ms): the earliest time not claimed, or when the oldest claim by another replica goes stale. */
  async nextWake(replica: string, staleAfterMs: number): Promise<number | undefined> {
    const [row] = await this.#db.all<{ at: number | null }>(
      `SELECT MIN(CASE WHEN claim_replica IS NULL THEN next_run_at WHEN claim_replica <> ? THEN claim_at + ? ELSE NULL END) AS at FROM thinktank_crons WHERE enabled = 1 AND next_run_at IS NOT NULL`,
      [replica, staleAfterMs],
    );
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  async #notify(): Promise<void> {
    if (this.#db.dialect.name === "postgres") await this.#db.run("SELECT pg_notify(?, 'changed')", [cronsChannel]);
  }

  #row(row: object): CronRow {
    const record = recordOf<CronRow>(cronsTable, this.#db.dialect, row);
    // pg returns DOUBLE PRECISION as a number and INTEGER as a number; SQLite likewise. Keep the types exact anyway.
    return { ...record, enabled: Number(record.enabled), failures: Number(record.failures), next_run_at: record.next_run_at === null ? null : Number(record.next_run_at), claim_at: record.claim_at === null ? null : Number(record.claim_at) };
  }

  #filter(filter: CronFilter): { where: string; parameters: unknown[]; inCode?: (row: CronRow) => boolean } {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (filter.owner !== undefined) {
      conditions.push("owner_id = ?");
      parameters.push(filter.owner);
    }
    if (filter.assistant_id !== undefined) {
      conditions.push("assistant_id = ?");
      parameters.push(filter.assistant_id);
    }
    if (filter.thread_id !== undefined) {
      conditions.push("thread_id = ?");
      parameters.push(filter.thread_id);
    }
    if (filter.enabled !== undefined) {
      conditions.push("enabled = ?");
      parameters.push(filter.enabled ? 1 : 0);
    }
    let inCode: ((row: CronRow) => boolean) | undefined;
    if (filter.metadata && Object.keys(filter.metadata).length > 0) {
      const contains = this.#db.dialect.jsonContains;
      if (contains) {
        conditions.push(contains("metadata"));
        parameters.push(JSON.stringify(filter.metadata));
      } else {
        const wanted = filter.metadata;
        inCode = (row) => containsAll(row.metadata, wanted);
      }
    }
    return { where: conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "", parameters, inCode };
  }
}
