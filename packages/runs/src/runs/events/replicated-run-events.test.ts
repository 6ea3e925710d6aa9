import crypto from "node:crypto";
import pg from "pg";
import { createClient } from "redis";
import { needs, startRedis, type OptionalPart, type RedisServer } from "@thinktank/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { KeptRun, RunEvent } from "../run-event-store.js";
import type { EventChannel } from "./event-channel.js";
import { listenerName, PostgresEventChannel } from "./postgres-event-channel.js";
import { RedisEventChannel } from "./redis-event-channel.js";
import { ReplicatedRunEvents } from "./replicated-run-events.js";
import { openPostgresRunEvents, openRedisRunEvents, type SharedRunEventsOptions } from "./shared-run-events.js";

/**
 * Two stores on one backend are two replicas: separate connections, separate memory. A run
 * executes on `a` (open, push, finish) and is followed on `b` (lookup, follow), against a real
 * Postgres (THINKTANK_TEST_POSTGRES_URL) and a real redis-server.
 */
interface Backend {
  readonly name: string;
  readonly part: OptionalPart;
  start(): Promise<{
    open: (options: SharedRunEventsOptions) => Promise<ReplicatedRunEvents>;
    channel: (options: SharedRunEventsOptions) => Promise<EventChannel>;
    /** Cuts every store's listening connection (as a network blip or a server restart would); returns how many. */
    cutListeners: () => Promise<number>;
    stop: () => Promise<void>;
  }>;
}

const backends: Backend[] = [
  {
    name: "Postgres (table + LISTEN/NOTIFY)",
    part: "postgres",
    start: async () => {
      const url = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";
      const cutListeners = async () => {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          const sql = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1";
          return (await admin.query(sql, [listenerName])).rowCount ?? 0;
        } finally {
          await admin.end();
        }
      };
      return { open: (options) => openPostgresRunEvents(url, options), channel: (options) => PostgresEventChannel.open(url, options), cutListeners, stop: async () => undefined };
    },
  },
  {
    name: "Redis (streams + pub/sub)",
    part: "redis",
    start: async () => {
      const server: RedisServer = await startRedis();
      const cutListeners = async () => {
        const admin = createClient({ url: server.url });
        await admin.connect();
        try {
          return Number(await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"]));
        } finally {
          admin.destroy();
        }
      };
      return { open: (options) => openRedisRunEvents(server.url, options), channel: (options) => RedisEventChannel.open(server.url, options), cutListeners, stop: () => server.stop() };
    },
  },
];

const hour = 60 * 60 * 1000;

async function take(iterable: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const ids = (events: readonly RunEvent[]): string[] => events.map((event) => event.id);
const range = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, index) => String(from + index));

for (const backend of backends) {
  describe(`ReplicatedRunEvents on ${backend.name}`, needs(backend.part), () => {
    let server: Awaited<ReturnType<Backend["start"]>>;
    const opened: ReplicatedRunEvents[] = [];
    const errors: string[] = [];
    const replica = async (options: Partial<SharedRunEventsOptions> = {}) => {
      const store = await server.open({ retentionMs: hour, onError: (error, what) => errors.push(`${what}: ${String(error)}`), ...options });
      opened.push(store);
      return store;
    };

    beforeAll(async () => {
      server = await backend.start();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
      expect(errors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      await server?.stop();
    });

    /** A run started on `store`: its first event written (as the run manager's create awaits). */
    const startRun = async (store: ReplicatedRunEvents): Promise<{ runId: string; kept: KeptRun }> => {
      const runId = crypto.randomUUID();
      const kept = store.open(runId);
      kept.log.push("metadata", JSON.stringify({ run_id: runId, attempt: 1 }));
      await kept.log.flushed?.();
      return { runId, kept };
    };

    it("streams a run's events to a follower on another replica, in order, with the same frames, until the end (and join's result)", async () => {
      const [a, b] = [await replica(), await replica()];
      const { runId, kept } = await startRun(a);
      const remote = await b.lookup(runId);
      expect(remote).toBeDefined();
      expect(remote).not.toBe(kept);
      const followed = take(remote!.log.follow());
      const local = take(kept.log.follow());
      for (let index = 0; index < 20; index++) kept.log.push(index % 2 ? "values" : "messages/partial", JSON.stringify({ index, text: 'é "quoted" \\ \n' }));
      kept.result = { answer: 42 };
      a.finish(runId);
      const [there, here] = await Promise.all([followed, local]);
      expect(ids(there)).toEqual(range(0, 21));
      expect(there.map((event) => event.frame)).toEqual(here.map((event) => event.frame));
      expect(remote!.result).toEqual({ answer: 42 });
    });

    it("gives a late joiner every event from the start, and resumes after a Last-Event-ID, while running and after the end", async () => {
      const [a, b] = [await replica(), await replica()];
      const { runId, kept } = await startRun(a);
      for (let index = 1; index < 10; index++) kept.log.push("values", JSON.stringify({ index }));
      await kept.log.flushed?.();
      const running = await b.lookup(runId);
      const resumed = take(running!.log.follow("6"));
      const fromStart = take(running!.log.follow());
      kept.log.push("values", JSON.stringify({ index: 10 }));
      a.finish(runId);
      expect(ids(await resumed)).toEqual(range(7, 11));
      expect(ids(await fromStart)).toEqual(range(0, 11));
      await kept.log.flushed?.();
      // After the end, from a third replica that never saw the run.
      const c = await replica();
      const ended = await c.lookup(runId);
      expect(ids(await take(ended!.log.follow()))).toEqual(range(0, 11));
      expect(ids(await take(ended!.log.follow("9")))).toEqual(["10"]);
      expect(ids(await take(ended!.log.follow("not-a-number")))).toEqual(range(0, 11));
    });

    it("finds a run on any replica: its own log where it executes, none for an unknown run", async () => {
      const [a, b] = [await replica(), await replica()];
      const { runId, kept } = await startRun(a);
      expect(a.get(runId)).toBe(kept);
      expect(await a.lookup(runId)).toBe(kept);
      expect(b.get(runId)).toBeUndefined();
      expect(await b.lookup(crypto.randomUUID())).toBeUndefined();
      expect(a.size).toMatchObject({ runs: 1, finished: 0 });
      a.finish(runId);
      await kept.log.flushed?.();
      // Once the end row is written, the channel is where its events are kept.
      expect(a.size.runs).toBe(0);
      expect(ids(await take((await a.lookup(runId))!.log.follow()))).toEqual(["0"]);
    });

    it("ends followers everywhere when another replica ends a run whose replica is gone", async () => {
      const [a, b, c] = [await replica(), await replica(), await replica()];
      const { runId, kept } = await startRun(a);
      kept.log.push("values", "{}");
      await kept.log.flushed?.();
      const following = take((await b.lookup(runId))!.log.follow());
      // `a` stops writing (its process died); `c` takes the run over and ends it.
      c.finish(runId);
      expect(ids(await following)).toEqual(["0", "1"]);
    });

    it("lets a replica a run was taken from write nothing more of it: followers get the taker's events and end", async () => {
      const [a, b, c] = [await replica(), await replica(), await replica()];
      // Created on `a`, which stalled before the run's turn; `b` took it over.
      const { runId, kept: onA } = await startRun(a);
      const localOnA = take(onA.log.follow());
      onA.log.push("values", JSON.stringify({ from: "a, queued as it stalled" }));
      a.abandon(runId);
      expect(ids(await localOnA)).toEqual(["0", "1"]);
      expect(a.get(runId)).toBeUndefined();
      const onB = b.open(runId);
      onB.log.push("metadata", JSON.stringify({ run_id: runId, attempt: 1 }));
      for (let index = 1; index <= 3; index++) onB.log.push("values", JSON.stringify({ from: "b", index }));
      onB.result = { by: "b" };
      b.finish(runId);
      await onB.log.flushed?.();
      await a.close();
      const followed = (await c.lookup(runId))!;
      const events = await take(followed.log.follow());
      expect(ids(events)).toEqual(range(0, 4));
      expect(events.slice(1).every((event) => event.frame.includes('"from":"b"'))).toBe(true);
      expect(followed.result).toEqual({ by: "b" });
    });

    it("catches up on what was announced while its listening connection was cut", async () => {
      const [a, b] = [await replica(), await replica()];
      const { runId, kept } = await startRun(a);
      const events: RunEvent[] = [];
      const remote = await b.lookup(runId);
      const followed = (async () => {
        for await (const event of remote!.log.follow()) events.push(event);
      })();
      await expect.poll(() => events.length).toBe(1);
      expect(await server.cutListeners()).toBeGreaterThanOrEqual(2);
      // Announced while no listener hears it; read once the connection is back.
      for (let index = 1; index < 10; index++) kept.log.push("values", JSON.stringify({ index }));
      await kept.log.flushed?.();
      kept.result = { done: true };
      a.finish(runId);
      await followed;
      expect(ids(events)).toEqual(range(0, 10));
      expect(remote!.result).toEqual({ done: true });
      // The cut was reported (and the connection reopened), nothing else.
      expect(errors.splice(0).every((error) => error.includes("listening connection") || error.includes("subscriber") || error.includes("Redis connection"))).toBe(true);
    });

    it("has its channel call reset once the listening connection is back (announcements may have been missed)", async () => {
      const channel = await server.channel({ retentionMs: hour, onError: () => undefined });
      const heard: string[] = [];
      await channel.listen({ announced: (runId, seq) => heard.push(`${runId}:${seq}`), reset: () => heard.push("reset") });
      try {
        expect(await server.cutListeners()).toBeGreaterThanOrEqual(1);
        await expect.poll(() => heard, { timeout: 10_000 }).toContain("reset");
        // And it hears announcements again.
        await channel.write([{ runId: "after-the-cut", seq: 0, event: "metadata", data: "{}" }], false);
        await expect.poll(() => heard, { timeout: 10_000 }).toContain("after-the-cut:0");
      } finally {
        await channel.close();
      }
    });

    it("drops a finished run's events after the retention time, and keeps a running run's", async () => {
      const a = await replica({ retentionMs: 200 });
      const b = await replica();
      const finished = await startRun(a);
      const running = await startRun(a);
      a.finish(finished.runId);
      await finished.kept.log.flushed?.();
      expect(await b.lookup(finished.runId)).toBeDefined();
      // Postgres: the periodic sweep (called here); Redis: the key's expiry.
      await expect.poll(async () => (await a.sweep(), await b.lookup(finished.runId)), { timeout: 10_000, interval: 50 }).toBeUndefined();
      expect(await b.lookup(running.runId)).toBeDefined();
    });

    it("gives each of 32 concurrent followers on another replica every event", async () => {
      const [a, b] = [await replica(), await replica()];
      const { runId, kept } = await startRun(a);
      const shared = await b.lookup(runId);
      // Half through one KeptRun, half through lookups of their own (as separate requests do).
      const logs = await Promise.all(Array.from({ length: 32 }, async (_, index) => (index % 2 ? shared! : (await b.lookup(runId))!).log));
      const followers = logs.map((log) => take(log.follow()));
      for (let index = 1; index < 200; index++) {
        kept.log.push("values", JSON.stringify({ index }));
        // Some events alone, some in bursts: the writes carry one row or many.
        if (index % 25 === 0) await kept.log.flushed?.();
      }
      a.finish(runId);
      for (const events of await Promise.all(followers)) expect(ids(events)).toEqual(range(0, 200));
    });

    it("carries a burst of 1,000 events to another replica complete and in order, in a few writes", async () => {
      // The executing replica's channel, counting its writes (each is one round trip).
      const channel = await server.channel({ retentionMs: hour });
      const writes: number[] = [];
      const write = channel.write.bind(channel);
      channel.write = (rows, retry) => (writes.push(rows.length), write(rows, retry));
      const a = await ReplicatedRunEvents.open(channel);
      opened.push(a);
      const b = await replica();
      const { runId, kept } = await startRun(a);
      const followed = take((await b.lookup(runId))!.log.follow());
      for (let index = 1; index <= 1000; index++) kept.log.push("messages/partial", JSON.stringify({ index, chunk: "x".repeat(index % 50) }));
      a.finish(runId);
      const events = await followed;
      expect(ids(events)).toEqual(range(0, 1001));
      expect(events.slice(1).map((event) => (JSON.parse(event.frame.split("data: ")[1] as string) as { index: number }).index)).toEqual(range(1, 1001).map(Number));
      // The first event alone (the run's start), then the burst and its end in batches of up to 500 rows.
      expect(writes).toEqual([1, 500, 500, 1]);
    });
  });
}
