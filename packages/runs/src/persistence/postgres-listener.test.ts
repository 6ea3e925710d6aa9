import crypto from "node:crypto";
import pg from "pg";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresListener } from "./postgres-listener.js";

/** Against the real Postgres at THINKTANK_TEST_POSTGRES_URL; each test on a channel and connection name of its own. */
describe("PostgresListener", needs("postgres"), () => {
  const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
  let admin: pg.Client;
  const fresh = () => `tt_listen_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const notify = (channel: string, payload: string) => admin.query("SELECT pg_notify($1, $2)", [channel, payload]);
  const cut = async (name: string) => (await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name])).rowCount;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });

  it("hears the channel's payloads, and only its channel's", async () => {
    const [channel, other] = [fresh(), fresh()];
    const heard: string[] = [];
    const listener = new PostgresListener({ url, channel, onPayload: (payload) => heard.push(payload), onReconnect: () => undefined, onError: () => undefined });
    await listener.open();
    try {
      await notify(other, "not mine");
      await notify(channel, "one");
      await notify(channel, "two");
      await expect.poll(() => heard).toEqual(["one", "two"]);
    } finally {
      await listener.close();
    }
  });

  it("reports a cut connection, listens again, says so, and hears what comes after", async () => {
    const channel = fresh();
    const heard: string[] = [];
    const events: string[] = [];
    const listener = new PostgresListener({
      url,
      channel,
      applicationName: channel,
      onPayload: (payload) => heard.push(payload),
      onReconnect: () => events.push("reconnected"),
      onError: (_error, what) => events.push(what),
    });
    await listener.open();
    try {
      expect(await cut(channel)).toBe(1);
      await expect.poll(() => events, { timeout: 10_000 }).toEqual(["dropped", "reconnected"]);
      await notify(channel, "after the cut");
      await expect.poll(() => heard).toEqual(["after the cut"]);
    } finally {
      await listener.close();
    }
  });

  it("rejects open() when it cannot connect, and then tries nothing more", async () => {
    const wrong = new URL(url);
    wrong.pathname = `/${fresh()}`;
    const events: string[] = [];
    const listener = new PostgresListener({ url: wrong.toString(), channel: fresh(), onPayload: () => undefined, onReconnect: () => events.push("reconnected"), onError: (_error, what) => events.push(what) });
    await expect(listener.open()).rejects.toThrow(/does not exist/);
    expect(events).toEqual([]);
  });

  it("stays closed after close() comes while it waits to reconnect", async () => {
    const channel = fresh();
    const events: string[] = [];
    let closing: Promise<void> | undefined;
    const listener = new PostgresListener({
      url,
      channel,
      applicationName: channel,
      onPayload: () => undefined,
      onReconnect: () => events.push("reconnected"),
      onError: (_error, what) => {
        events.push(what);
        closing ??= listener.close();
      },
    });
    await listener.open();
    expect(await cut(channel)).toBe(1);
    await expect.poll(() => events).toEqual(["dropped"]);
    await closing;
    // The first retry was due 100 ms after the cut: a window past it is the one way to see that it
    // did not happen (there is no event for "did not reconnect").
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect.poll(async () => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [channel])).rows[0].n).toBe(0);
    expect(events).toEqual(["dropped"]);
  });
});
