import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { SqlItemStore } from "../persistence/sql-item-store.js";
import { SqliteDatabase } from "../persistence/sqlite-database.js";
import { accessOf } from "../owners/access.js";
import { StoreService } from "./store-service.js";

// One user's own items (owners are owners.test.ts's subject).
const own = accessOf({ id: "usr_1", name: "one", role: "user", auth: "key" });

let now: number;
let store: StoreService;
const advance = (seconds: number) => {
  now += seconds * 1000;
};

beforeEach(async () => {
  now = Date.parse("2026-03-01T00:00:00.000Z");
  store = new StoreService(await SqlItemStore.open(new SqliteDatabase(new Database(":memory:"))), () => new Date(now));
});

describe("StoreService over SQLite", () => {
  it("keeps created_at across puts and moves updated_at", async () => {
    await store.put({ namespace: ["a"], key: "k", value: { n: 1 } }, own);
    advance(5);
    await store.put({ namespace: ["a"], key: "k", value: { n: 2 } }, own);
    expect(await store.get(["a"], "k", {}, own)).toEqual({
      namespace: ["a"],
      key: "k",
      value: { n: 2 },
      created_at: "2026-03-01T00:00:00.000Z",
      updated_at: "2026-03-01T00:00:05.000Z",
    });
  });

  it("lets items expire ttl minutes after the last write or refreshing read", async () => {
    await store.put({ namespace: ["t"], key: "refreshed", value: {}, ttl: 1 }, own);
    await store.put({ namespace: ["t"], key: "kept", value: {}, ttl: 1 }, own);
    await store.put({ namespace: ["t"], key: "forever", value: {} }, own);
    advance(45);
    expect(await store.get(["t"], "refreshed", {}, own)).not.toBeNull();
    expect(await store.get(["t"], "kept", { refreshTtl: false }, own)).not.toBeNull();
    advance(30);
    // 75 s after the put: "kept" expired; "refreshed" was read (and so restarted) 30 s ago.
    expect(await store.get(["t"], "kept", {}, own)).toBeNull();
    expect((await store.search({ namespacePrefix: ["t"], limit: 10, offset: 0, refreshTtl: false }, own)).map((item) => item.key).sort()).toEqual(["forever", "refreshed"]);
    advance(31);
    expect((await store.search({ namespacePrefix: ["t"], limit: 10, offset: 0 }, own)).map((item) => item.key)).toEqual(["forever"]);
    expect(await store.listNamespaces({ limit: 10, offset: 0 }, own)).toEqual([["t"]]);
  });

  it("pages in the database without a filter, and after filtering with one", async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      await store.put({ namespace: ["p"], key: `k${n}`, value: { n, odd: n % 2 === 1 } }, own);
      advance(1);
    }
    expect((await store.search({ namespacePrefix: ["p"], limit: 2, offset: 1 }, own)).map((item) => item.key)).toEqual(["k4", "k3"]);
    expect((await store.search({ namespacePrefix: ["p"], filter: { odd: true }, limit: 2, offset: 1 }, own)).map((item) => item.key)).toEqual(["k3", "k1"]);
  });
});
