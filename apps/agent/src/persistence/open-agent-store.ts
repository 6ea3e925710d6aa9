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
    return openPostgresStore(urlFromEnvironment(config, threads.postgres_url_env, "agent.threads", "postgres"));
  }
  return openSqliteStore(threads.sqlite_path);
}

/**
 * The URL in the environment variable a setting names (config.env), or NOT_CONFIGURED saying
 * which variable to set: `section` is where the backend is chosen ("agent.threads").
 */
export function urlFromEnvironment(config: Config, variable: string, section: string, backend: "postgres" | "redis"): string {
  const url = config.env[variable];
  if (url) return url;
  throw new ThinktankError(
    "NOT_CONFIGURED",
    `${section}.backend is ${backend}, but the environment variable ${variable} (${section}.${backend}_url_env) is not set: set it to a ${backend}:// URL.`,
    { details: { variable } },
  );
}
