import pg from "pg";
import { PostgresListener } from "../../persistence/postgres-listener.js";
import { withSchemaLock } from "../../persistence/schema-lock.js";
import { END_EVENT, type ChannelListener, type EventChannel, type EventRow } from "./event-channel.js";

export interface PostgresEventChannelOptions {
  /** How long a finished run's events stay (agent.run_events.retention_seconds). */
  readonly retentionMs: number;
  /** A run with no row newer than this is dropped even without an end row (its replica died and no other ended it). @default 24 h */
  readonly orphanMs?: number;
  /** Hears a lost listening connection (it is reopened). */
  readonly onError?: (error: unknown, what: string) => void;
}

/** The NOTIFY channel; a payload is `<run_id>:<seq>`, the data stays in the table. */
const notifyChannel = "thinktank_run_events";

/**
 * Postgres-only (no SQLite replica shares events), so it is made here rather than from schema.ts's
 * tables, under the same schema lock: replicas starting together create it once. `seq` is the SSE
 * id; `created_at` is the database's clock, the same for every replica.
 */
const createSql = `
CREATE TABLE IF NOT EXISTS thinktank_run_events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS thinktank_run_events_ended ON thinktank_run_events (created_at) WHERE event = '${END_EVENT}';`;

/**
 * One statement: the rows (as three arrays and the events' data as one JSON array, however many), and
 * one NOTIFY per run with its last seq. The data goes as JSON text: pg escapes a text[] parameter
 * character by character in JavaScript, which took ~0.6 s of the event loop for a run whose `values`
 * events carry a thread of a few MB; JSON.stringify does it natively.
 * Notifications go out at commit, so a replica that hears one reads the rows. ON CONFLICT: a retried
 * write whose first attempt committed.
 */
const writeSql = `
WITH input AS (
  SELECT r.run_id, r.seq, r.event, d.data
  FROM unnest($1::text[], $2::int[], $3::text[]) WITH ORDINALITY AS r(run_id, seq, event, n)
  JOIN json_array_elements_text($4::json) WITH ORDINALITY AS d(data, n) ON d.n = r.n),
inserted AS (INSERT INTO thinktank_run_events (run_id, seq, event, data) SELECT run_id, seq, event, data FROM input ON CONFLICT (run_id, seq) DO NOTHING)
SELECT pg_notify('${notifyChannel}', run_id || ':' || max(seq)) FROM input GROUP BY run_id`;

const sweepEndedSql = `
DELETE FROM thinktank_run_events WHERE run_id IN (
  SELECT run_id FROM thinktank_run_events WHERE event = '${END_EVENT}' AND created_at <= now() - $1::double precision * interval '1 millisecond')`;

const sweepOrphansSql = `
DELETE FROM thinktank_run_events WHERE run_id IN (
  SELECT run_id FROM thinktank_run_events GROUP BY run_id HAVING max(created_at) <= now() - $1::double precision * interval '1 millisecond')`;

/** The listening connection's application_name (pg_stat_activity shows which connection it is). */
export const listenerName = "thinktank-run-events-listener";

/**
 * Run events in a Postgres table, announced with LISTEN/NOTIFY: writes and reads on a small pool,
 * announcements on one connection of their own. Ended runs are dropped by `sweep` after the
 * retention time (ReplicatedRunEvents calls it periodically); runs left without an end row after
 * `orphanMs` too, checked at most every `orphanMs / 24`.
 */
export class PostgresEventChannel implements EventChannel {
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #retentionMs: number;
  readonly #orphanMs: number;
  readonly #onError: (error: unknown, what: string) => void;
  #listener: PostgresListener | undefined;
  #lastOrphanSweep = 0;

  private constructor(url: string, pool: pg.Pool, options: PostgresEventChannelOptions) {
    this.#url = url;
    this.#pool = pool;
    this.#retentionMs = options.retentionMs;
    this.#orphanMs = options.orphanMs ?? 24 * 60 * 60 * 1000;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Connects to `url` and creates the table when missing (under the schema lock). */
  static async open(url: string, options: PostgresEventChannelOptions): Promise<PostgresEventChannel> {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on("error", () => undefined);
    try {
      await withSchemaLock(pool, () => pool.query(createSql));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PostgresEventChannel(url, pool, options);
  }

  async write(rows: readonly EventRow[]): Promise<void> {
    await this.#pool.query(writeSql, [rows.map((row) => row.runId), rows.map((row) => row.seq), rows.map((row) => row.event), JSON.stringify(rows.map((row) => row.data))]);
  }

  async read(runId: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    const result = await this.#pool.query<{ seq: number; event: string; data: string }>(
      "SELECT seq, event, data FROM thinktank_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [runId, afterSeq, limit],
    );
    return result.rows.map((row) => ({ runId, seq: row.seq, event: row.event, data: row.data }));
  }

  async lastSeq(runId: string): Promise<number | undefined> {
    const result = await this.#pool.query<{ last: number | null }>("SELECT max(seq) AS last FROM thinktank_run_events WHERE run_id = $1", [runId]);
    return result.rows[0]?.last ?? undefined;
  }

  async listen(listener: ChannelListener): Promise<void> {
    const listening = new PostgresListener({
      url: this.#url,
      channel: notifyChannel,
      applicationName: listenerName,
      onPayload: (payload) => {
        const colon = payload.lastIndexOf(":");
        const seq = Number(payload.slice(colon + 1));
        if (colon > 0 && Number.isInteger(seq)) listener.announced(payload.slice(0, colon), seq);
      },
      // Announcements were missed meanwhile: every followed run reads again.
      onReconnect: () => listener.reset(),
      onError: (error, what) => this.#onError(error, what === "dropped" ? "the run events listening connection" : "reopening the run events listening connection"),
    });
    await listening.open();
    this.#listener = listening;
  }

  async sweep(): Promise<number> {
    let dropped = (await this.#pool.query(sweepEndedSql, [this.#retentionMs])).rowCount ?? 0;
    if (Date.now() - this.#lastOrphanSweep >= this.#orphanMs / 24) {
      this.#lastOrphanSweep = Date.now();
      dropped += (await this.#pool.query(sweepOrphansSql, [this.#orphanMs])).rowCount ?? 0;
    }
    return dropped;
  }

  async close(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.close();
    await this.#pool.end();
  }
}
