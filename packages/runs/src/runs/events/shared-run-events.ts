import { ReplicatedRunEvents } from "./replicated-run-events.js";

export interface SharedRunEventsOptions {
  /** How long a finished run's events stay (agent.run_events.retention_seconds × 1000). */
  readonly retentionMs: number;
  /** A run left without an end (its replica died and no other ended it) is dropped when nothing was written for it this long. @default 24 h */
  readonly orphanMs?: number;
  /** How often Postgres drops what is past retention (Redis expires keys itself). @default the retention time, within 1 s … 60 s */
  readonly sweepEveryMs?: number;
  /** Hears what failed in the background (the store carries on): the server's logger. */
  readonly onError?: (error: unknown, what: string) => void;
}

/**
 * Run events shared by the replicas on the Postgres database at `url` (agent.streams.backend:
 * postgres): a table, LISTEN/NOTIFY. pg is loaded here, on first use.
 */
export async function openPostgresRunEvents(url: string, options: SharedRunEventsOptions): Promise<ReplicatedRunEvents> {
  const { PostgresEventChannel } = await import("./postgres-event-channel.js");
  const sweepEveryMs = options.sweepEveryMs ?? Math.min(60_000, Math.max(1000, options.retentionMs));
  return ReplicatedRunEvents.open(await PostgresEventChannel.open(url, options), { ...options, sweepEveryMs });
}

/**
 * Run events shared by the replicas through the Redis at `url` (agent.streams.backend: redis): a
 * stream per run, pub/sub. The redis client is loaded here, on first use.
 */
export async function openRedisRunEvents(url: string, options: SharedRunEventsOptions): Promise<ReplicatedRunEvents> {
  const { RedisEventChannel } = await import("./redis-event-channel.js");
  return ReplicatedRunEvents.open(await RedisEventChannel.open(url, options), options);
}
