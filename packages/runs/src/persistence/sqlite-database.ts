import type Database from "better-sqlite3";
import type { SqlDatabase, SqlDialect, SqlStatement } from "./sql-database.js";

export const sqliteDialect: SqlDialect = {
  name: "sqlite",
  jsonType: "TEXT",
  realType: "REAL",
  readJson: (value) => JSON.parse(value as string),
  bytewise: "COLLATE BINARY",
};

/**
 * SqlDatabase over better-sqlite3 (synchronous: each call is done when its promise is made).
 * A transaction runs its statements in one synchronous stretch, so nothing else interleaves.
 */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = sqliteDialect;
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  async all<Row>(sql: string, parameters: readonly unknown[] = []): Promise<Row[]> {
    return this.#db.prepare(sql).all(...parameters) as Row[];
  }

  async run(sql: string, parameters: readonly unknown[] = []): Promise<number> {
    return this.#db.prepare(sql).run(...parameters).changes;
  }

  async transaction(statements: readonly SqlStatement[]): Promise<number[]> {
    return this.#db.transaction(() => statements.map((statement) => this.#db.prepare(statement.sql).run(...statement.parameters).changes))();
  }

  async exec(script: string): Promise<void> {
    this.#db.exec(script);
  }
}
