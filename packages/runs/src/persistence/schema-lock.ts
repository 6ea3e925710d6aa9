import type pg from "pg";

/**
 * The key of the session advisory lock that serialises creating and migrating the threads schema
 * (checkpoint tables and their migrations, `thinktank_*` tables): the bytes of "thinktnk" as one
 * signed 64-bit number. Advisory locks are per database, so replicas on one database take turns and
 * other databases on the same server are not held up. Never change it: replicas of different
 * versions starting together must agree on it.
 */
export const SCHEMA_LOCK_KEY = "8388070228947660395";

/**
 * Runs `work` (the schema set-up) while holding the schema lock on a client of its own taken from
 * `pool`, so replicas starting together on a fresh database create each table once instead of
 * racing (`duplicate key value violates unique constraint "pg_type_typname_nsp_index"`). The lock
 * is released after, or with the connection if the process dies holding it. `work` runs its
 * statements on other clients of the pool, which needs room for two (pg's default is 10).
 */
export async function withSchemaLock<Result>(pool: pg.Pool, work: () => Promise<Result>): Promise<Result> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1::bigint)", [SCHEMA_LOCK_KEY]);
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  try {
    return await work();
  } finally {
    try {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [SCHEMA_LOCK_KEY]);
      client.release();
    } catch (error) {
      // Closed instead of returned to the pool, so the lock ends with its connection.
      client.release(error as Error);
    }
  }
}
