import { addColumnsSql, columnDefinition, createIndexSql, type Column, type Table } from "./schema.js";
import type { SqlDatabase, SqlStatement } from "./sql-database.js";

/**
 * Additive migrations of the threads database, the same on SQLite and Postgres. On Postgres they run
 * under the schema lock (schema-lock.ts), one replica at a time; SQLite processes opening one file
 * at once may race, and each step here tolerates losing that race.
 */

/** Adds the columns a table made before them lacks (existing rows take each column's default), then the indexes. */
export async function addMissingColumns(db: SqlDatabase, table: Table, columns: readonly Column[], indexes: NonNullable<Table["indexes"]> = []): Promise<void> {
  if (db.dialect.name === "postgres") {
    await db.exec(addColumnsSql(db.dialect, table, columns, indexes));
    return;
  }
  // SQLite has no ADD COLUMN IF NOT EXISTS: ask which columns the table has.
  const present = new Set((await db.all<{ name: string }>(`PRAGMA table_info(${table.name})`)).map((row) => row.name));
  for (const column of columns.filter((candidate) => !present.has(candidate.name))) {
    try {
      await db.exec(`ALTER TABLE ${table.name} ADD COLUMN "${column.name}" ${columnDefinition(db.dialect, column)}`);
    } catch (error) {
      // Another process opening the same file added it a moment ago.
      if (!/duplicate column name/i.test((error as Error).message)) throw error;
    }
  }
  for (const index of indexes) await db.exec(createIndexSql(table, index));
}

const migrationsTable = "thinktank_migrations";

/**
 * Runs `statements` once per database, in one transaction with the row that records `name` in
 * `thinktank_migrations`: a database where it ran (or a process that ran it a moment ago) skips it.
 * For changes that are not idempotent (rewriting rows). Returns whether it ran here.
 */
export async function migrateOnce(db: SqlDatabase, name: string, statements: readonly SqlStatement[], now: string): Promise<boolean> {
  await db.exec(`CREATE TABLE IF NOT EXISTS ${migrationsTable} (name TEXT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`);
  if ((await db.all(`SELECT name FROM ${migrationsTable} WHERE name = ?`, [name])).length > 0) return false;
  try {
    await db.transaction([{ sql: `INSERT INTO ${migrationsTable} (name, applied_at) VALUES (?, ?)`, parameters: [name, now] }, ...statements]);
    return true;
  } catch (error) {
    // Another SQLite process recorded it first (its transaction held the write lock; ours then met its row and rolled back).
    const code = (error as { code?: string }).code;
    if (code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505") return false;
    throw error;
  }
}
