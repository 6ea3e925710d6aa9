/** One statement with `?` placeholders and their values, in order. */
export interface SqlStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * Where SQLite and Postgres differ for the stores: column types, how a JSON column comes back,
 * byte-order collation, and whether JSON containment is a query or a check in code. Everything
 * else (tables, statements, placeholders `?`) is written once.
 */
export interface SqlDialect {
  readonly name: "sqlite" | "postgres";
  /** The column type of a JSON value: TEXT (SQLite) or JSONB (Postgres). */
  readonly jsonType: string;
  /** The column type of a floating-point number. */
  readonly realType: string;
  /** A JSON column's value as the driver returns it, decoded: SQLite returns text, pg parses JSONB itself. */
  readJson(value: unknown): unknown;
  /** Appended to an ORDER BY column to order text by bytes (SQLite's default), whatever the database's collation. */
  readonly bytewise: string;
  /**
   * A condition "the JSON object in `column` contains the object in the next parameter", or
   * undefined when the dialect has none: then the store filters in code (`containsAll`).
   */
  jsonContains?(column: string): string;
}

/**
 * What the stores need of a database: one implementation over better-sqlite3 (sqlite-database.ts),
 * one over a pg pool (postgres-database.ts). Statements use `?` placeholders.
 */
export interface SqlDatabase {
  readonly dialect: SqlDialect;
  /** The rows a query returns. */
  all<Row>(sql: string, parameters?: readonly unknown[]): Promise<Row[]>;
  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, parameters?: readonly unknown[]): Promise<number>;
  /** Runs the statements in one transaction; returns how many rows each changed. */
  transaction(statements: readonly SqlStatement[]): Promise<number[]>;
  /** Runs a script without parameters (the schema). */
  exec(script: string): Promise<void>;
}
