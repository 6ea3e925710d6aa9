import { needs } from "@thinktank/testing";
import type { TestOptions } from "vitest";

/** One threads backend an integration suite runs against: its suite options and fixture settings. */
export interface AgentBackend {
  readonly name: "sqlite" | "postgres";
  /** `needs("postgres")` for Postgres: skipped, and reported, without THINKTANK_TEST_POSTGRES_URL. */
  readonly testOptions: TestOptions;
  readonly fixture: { readonly configYaml?: string; readonly env?: Record<string, string> };
}

/**
 * SQLite (the default fixture), and Postgres at THINKTANK_TEST_POSTGRES_URL (`.ci/start-postgres`
 * prints one). The Postgres database is shared by runs, so suites use fresh ids and namespaces.
 */
export function agentBackends(): AgentBackend[] {
  const url = process.env.THINKTANK_TEST_POSTGRES_URL;
  const postgresConfig = [
    "data_dir: data",
    "log:",
    "  level: warn",
    "agent:",
    "  threads:",
    "    backend: postgres",
    "    postgres_url_env: TEST_PG",
    "models:",
    "  default: scripted",
    "  providers:",
    "    scripted:",
    "      provider: scripted",
    "      script: script.yaml",
    "",
  ].join("\n");
  return [
    { name: "sqlite", testOptions: {}, fixture: {} },
    { name: "postgres", testOptions: needs("postgres"), fixture: { configYaml: postgresConfig, env: url ? { TEST_PG: url } : {} } },
  ];
}
