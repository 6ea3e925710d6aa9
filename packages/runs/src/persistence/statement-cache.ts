import type Database from "better-sqlite3";

/** Statements kept per database; past it the cache starts over (SQL built from filters varies). */
const maxStatements = 256;

/**
 * Makes `db.prepare` reuse the statement it compiled for the same SQL text. The LangGraph
 * checkpointer and our stores call `prepare` on every read and write, and compiling the SQL was
 * about 3% of the agent's CPU under load. Safe here because no caller leaves a statement half
 * iterated (`iterate()`) or switches its mode (`pluck`, `raw`, `expand`), which a shared statement
 * would carry over to the next caller.
 */
export function cacheStatements(db: Database.Database): void {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= maxStatements) statements.clear();
      statement = prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }) as Database.Database["prepare"];
}
