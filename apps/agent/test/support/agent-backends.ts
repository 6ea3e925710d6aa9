import { needs } from "@thinktank/testing";
import type { AgentFixtureOptions } from "./agent-fixture.js";
import type { TestOptions } from "vitest";

/** One threads backend an integration suite runs against: its suite options and fixture settings. */
export interface AgentBackend {
  readonly name: "sqlite" | "postgres";
  /** `needs("postgres")` for Postgres: skipped, and reported, without THINKTANK_TEST_POSTGRES_URL. */
  readonly testOptions: TestOptions;
  readonly fixture: AgentFixtureOptions;
}

/**
 * SQLite (the default fixture), and Postgres at THINKTANK_TEST_POSTGRES_URL (`.ci/start-postgres`
 * prints one). The Postgres database is shared by runs, so suites use fresh ids and namespaces.
 */
export function agentBackends(): AgentBackend[] {
  const url = process.env.THINKTANK_TEST_POSTGRES_URL;
  return [
    { name: "sqlite", testOptions: {}, fixture: {} },
    { name: "postgres", testOptions: needs("postgres"), fixture: { extraConfig: ["agent:", "  threads:", "    backend: postgres", "    postgres_url_env: TEST_PG"], env: url ? { TEST_PG: url } : {} } },
  ];
}
