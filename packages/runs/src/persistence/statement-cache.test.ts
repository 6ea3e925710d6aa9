import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cacheStatements } from "./statement-cache.js";

describe("cacheStatements", () => {
  it("reuses the statement compiled for the same SQL, and answers as before", () => {
    const db = new Database(":memory:");
    cacheStatements(db);
    db.prepare("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)").run();
    const insert = db.prepare("INSERT INTO t (k, v) VALUES (?, ?)");
    expect(db.prepare("INSERT INTO t (k, v) VALUES (?, ?)")).toBe(insert);
    db.transaction(() => {
      for (const [k, v] of [["a", 1], ["b", 2]] as const) db.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v);
    })();
    expect(db.prepare("SELECT v FROM t WHERE k = ?").get("b")).toEqual({ v: 2 });
    expect(db.prepare("SELECT k FROM t ORDER BY k").all()).toEqual([{ k: "a" }, { k: "b" }]);
    db.close();
  });

  it("starts over past its bound (SQL built from filters varies)", () => {
    const db = new Database(":memory:");
    cacheStatements(db);
    const first = db.prepare("SELECT 0");
    for (let index = 1; index <= 300; index++) db.prepare(`SELECT ${index}`);
    expect(db.prepare("SELECT 0")).not.toBe(first);
    expect(db.prepare("SELECT 0").pluck().get()).toBe(0);
    db.close();
  });
});
