import type { Config } from "@thinktank/core";
import { KeptRunEvents, openPostgresRunEvents, openRedisRunEvents, type RunEventStore } from "@thinktank/runs";
import { urlFromEnvironment } from "./open-agent-store.js";

/**
 * Where runs' events wait for streams and join. SQLite (one process): in memory, bounded by
 * `agent.run_events`. Postgres (replicas may share the database): shared by every replica, over
 * Postgres LISTEN/NOTIFY at the threads database, or Redis at the URL in `agent.streams.redis_url_env`
 * (`agent.streams.backend`), kept `agent.run_events.retention_seconds` after each run's end.
 */
export async function openRunEvents(config: Config, log: { error(fields: object, message: string): void }): Promise<RunEventStore> {
  const bounds = config.agent.run_events;
  const retentionMs = bounds.retention_seconds * 1000;
  const threads = config.agent.threads;
  if (threads.backend !== "postgres") return new KeptRunEvents({ retentionMs, maxRuns: bounds.max_runs, maxBytes: bounds.max_mb * 1024 * 1024 });
  const options = { retentionMs, onError: (error: unknown, what: string) => log.error({ err: error }, `run events: ${what} failed`) };
  const streams = config.agent.streams;
  if (streams.backend === "redis") {
    return openRedisRunEvents(urlFromEnvironment(config, streams.redis_url_env, "agent.streams", "redis"), options);
  }
  // openAgentStore already refused a missing URL.
  return openPostgresRunEvents(config.env[threads.postgres_url_env] ?? "", options);
}
