import fs from "node:fs";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import Database from "better-sqlite3";
import { ThinktankError } from "@thinktank/core";
import { cacheStatements } from "./statement-cache.js";

/**
 * The threads database file as every opener opens it (the stores, and packages/identity's tables kept
 * there): folder (0700) and file made when missing, WAL mode, statements cached. The file is created
 * (or set) 0600 before SQLite opens it: SQLite gives the -wal and -shm files the main file's mode, so
 * none of them is readable by other local users.
 */
export async function openSqliteFile(file: string): Promise<Database.Database> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(file, "a", 0o600));
    fs.chmodSync(file, 0o600);
    const db = await openWal(file);
    cacheStatements(db);
    return db;
  } catch (error) {
    throw new ThinktankError("STORE_CORRUPT", `cannot open the threads database ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Opens the file in WAL mode, waiting up to 5 s for a lock another connection holds. Switching
 * a fresh file to WAL needs the file to itself and SQLite answers SQLITE_BUSY at once rather
 * than waiting (its busy handler does not cover it): when another agent process opens the same
 * new file at that moment, the switch is tried again shortly, within the same 5 s.
 */
async function openWal(file: string): Promise<Database.Database> {
  const deadline = Date.now() + 5_000;
  for (let attempt = 1; ; attempt++) {
    const db = new Database(file, { timeout: 5_000 });
    try {
      db.pragma("journal_mode = WAL");
      return db;
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw error;
      await delay(Math.min(10 * attempt, 100));
    }
  }
}
