import { ThinktankError, type Config } from "@thinktank/core";
import { openPostgresStore, openSqliteStore, type AgentStore } from "@thinktank/runs";

export type { AgentStore } from "@thinktank/runs";

/**
 * Opens the store config.agent.threads names: SQLite at `sqlite_path` (default), or Postgres at
 * the URL in the environment variable `postgres_url_env` (config.env, not process.env).
 */
export async function openAgentStore(config: Config): Promise<AgentStore> {
  const threads = config.agent.threads;
  if (threads.backend === "postgres") {
    const url = config.env[threads.postgres_url_env];
    if (!url) {
      throw new ThinktankError(
        "NOT_CONFIGURED",
        `agent.threads.backend is postgres, but the environment variable ${threads.postgres_url_env} (agent.threads.postgres_url_env) is not set: set it to a postgres:// URL.`,
        { details: { variable: threads.postgres_url_env } },
      );
    }
    return openPostgresStore(url);
  }
  return openSqliteStore(threads.sqlite_path);
}
