import { createClient, MultiErrorReply } from "redis";
import { END_EVENT, type ChannelListener, type EventChannel, type EventRow } from "./event-channel.js";

export interface RedisEventChannelOptions {
  /** How long a finished run's events stay (agent.run_events.retention_seconds): the key's expiry once the end row is written. */
  readonly retentionMs: number;
  /** The expiry of a run's key while it runs, renewed at each write: a run whose replica died goes after it. @default 24 h */
  readonly orphanMs?: number;
  /** Hears connection errors (the client reconnects by itself). */
  readonly onError?: (error: unknown, what: string) => void;
}

const newClient = (url: string) => createClient({ url });
type Client = ReturnType<typeof newClient>;

/** Every replica's announcements: `<run_id>:<seq>` (the data stays in the run's stream). */
const announceChannel = "thinktank:run-events";
const keyOf = (runId: string): string => `thinktank:run-events:${runId}`;

/**
 * A row's stream entry id: `0-<seq + 1>` (ids start above 0-0), so the stream's order is the seq
 * order, a late joiner reads with XRANGE after the id of its Last-Event-ID, and a write that would
 * repeat or reorder a row fails rather than doubling it.
 */
const entryId = (seq: number): string => `0-${seq + 1}`;
const seqOf = (id: string): number => Number(id.slice(id.indexOf("-") + 1)) - 1;

/**
 * Run events in Redis: a stream per run (XADD, read with XRANGE), announced on one pub/sub channel.
 * Streams keep the events for late joiners and resumes; pub/sub wakes every replica's one
 * subscriber connection. (One XREAD BLOCK per process over every followed key would need
 * interrupting whenever a follower comes; one per follower would hold a connection each.) A batch
 * goes in one MULTI: its XADDs, each run's expiry, each run's announcement.
 */
export class RedisEventChannel implements EventChannel {
  readonly #client: Client;
  readonly #retentionMs: number;
  readonly #orphanMs: number;
  readonly #onError: (error: unknown, what: string) => void;
  #subscriber: Client | undefined;
  #closed = false;

  private constructor(client: Client, options: RedisEventChannelOptions) {
    this.#client = client;
    this.#retentionMs = Math.max(1, options.retentionMs);
    this.#orphanMs = options.orphanMs ?? 24 * 60 * 60 * 1000;
    const onError = options.onError ?? (() => undefined);
    // A connection torn down by close() (or one still reconnecting when close came) is not news.
    this.#onError = (error, what) => {
      if (!this.#closed) onError(error, what);
    };
    client.on("error", (error: unknown) => this.#onError(error, "the run events Redis connection"));
    this.#endAfterClose(client);
  }

  /**
   * A connection that comes back after close() goes again: the client's reconnect loop does not
   * look whether it was closed while a socket was being opened, and would stay connected.
   */
  #endAfterClose(client: Client): void {
    client.on("ready", () => {
      if (this.#closed) client.destroy();
    });
  }

  static async open(url: string, options: RedisEventChannelOptions): Promise<RedisEventChannel> {
    const channel = new RedisEventChannel(newClient(url), options);
    await channel.#client.connect();
    return channel;
  }

  async write(rows: readonly EventRow[], retry: boolean): Promise<void> {
    const multi = this.#client.multi();
    const runs = new Map<string, { seq: number; ended: boolean }>();
    for (const row of rows) {
      multi.xAdd(keyOf(row.runId), entryId(row.seq), { event: row.event, data: row.data });
      const run = runs.get(row.runId);
      runs.set(row.runId, { seq: row.seq, ended: (run?.ended ?? false) || row.event === END_EVENT });
    }
    for (const [runId, run] of runs) {
      multi.pExpire(keyOf(runId), run.ended ? this.#retentionMs : this.#orphanMs);
      multi.publish(announceChannel, `${runId}:${run.seq}`);
    }
    try {
      await multi.exec();
    } catch (error) {
      // A retry after an attempt that was applied: its XADDs say "equal or smaller than the target stream top item".
      if (retry && error instanceof MultiErrorReply && [...error.errors()].every((reply) => /equal or smaller/i.test(reply.message))) return;
      throw error;
    }
  }

  async read(runId: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    const entries = await this.#client.xRange(keyOf(runId), afterSeq < 0 ? "-" : `(${entryId(afterSeq)}`, "+", { COUNT: limit });
    return (entries ?? []).map((entry) => ({ runId, seq: seqOf(entry.id), event: String(entry.message.event), data: String(entry.message.data) }));
  }

  async lastSeq(runId: string): Promise<number | undefined> {
    const [last] = (await this.#client.xRevRange(keyOf(runId), "+", "-", { COUNT: 1 })) ?? [];
    return last ? seqOf(last.id) : undefined;
  }

  async listen(listener: ChannelListener): Promise<void> {
    const subscriber = this.#client.duplicate();
    subscriber.on("error", (error: unknown) => this.#onError(error, "the run events Redis subscriber"));
    this.#endAfterClose(subscriber);
    let ready = 0;
    // The client reconnects and subscribes again by itself; what was published meanwhile is read again.
    subscriber.on("ready", () => {
      if (ready++ > 0 && !this.#closed) listener.reset();
    });
    await subscriber.connect();
    await subscriber.subscribe(announceChannel, (message) => {
      const colon = message.lastIndexOf(":");
      const seq = Number(message.slice(colon + 1));
      if (colon > 0 && Number.isInteger(seq)) listener.announced(message.slice(0, colon), seq);
    });
    this.#subscriber = subscriber;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    // A subscriber has nothing to drain; destroy() also stops a reconnect in progress for good
    // (a graceful close during one could leave it connected, still subscribed).
    subscriber?.destroy();
    await this.#client.close().catch(() => this.#client.destroy());
  }
}
