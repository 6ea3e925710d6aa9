import type pg from "pg";
import type { SqlDatabase, SqlDialect, SqlStatement } from "./sql-database.js";

export const postgresDialect: SqlDialect = {
  name: "postgres",
  jsonType: "JSONB",
  realType: "DOUBLE PRECISION",
  // pg parses JSONB into values itself.
  readJson: (value) => value,
  bytewise: 'COLLATE "C"',
  jsonContains: (column) => `${column} @> CAST(? AS JSONB)`,
};

/** `?` placeholders as Postgres numbers them ($1, $2, ...); the stores' SQL has no `?` elsewhere. */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/** SqlDatabase over a pg pool (shared by agent replicas); a transaction takes one client for its statements. */
export class PostgresDatabase implements SqlDatabase {
  readonly dialect = postgresDialect;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async all<Row>(sql: string, parameters: readonly unknown[] = []): Promise<Row[]> {
    return (await this.#pool.query(numbered(sql), [...parameters])).rows as Row[];
  }

  async run(sql: string, parameters: readonly unknown[] = []): Promise<number> {
    return (await this.#pool.query(numbered(sql), [...parameters])).rowCount ?? 0;
  }

  async transaction(statements: readonly SqlStatement[]): Promise<number[]> {
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      const changes: number[] = [];
      for (const statement of statements) changes.push((await client.query(numbered(statement.sql), [...statement.parameters])).rowCount ?? 0);
      await client.query("COMMIT");
      return changes;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async exec(script: string): Promise<void> {
    await this.#pool.query(script);
  }
}
