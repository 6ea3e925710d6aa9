import { Client } from "@langchain/langgraph-sdk";
import { startRedis, type RedisServer } from "@thinktank/testing";
import { afterAll, beforeAll } from "vitest";
import { startAgentProcess, type AgentProcess } from "./agent-process.js";
import { createFreshDatabase, type FreshDatabase } from "./fresh-postgres.js";
import { makeProjectFixture, type ProjectFixture } from "./project-fixture.js";

/** One agent server of a suite's replicas: its own project folder and process, the database shared. */
export interface Replica {
  readonly fixture: ProjectFixture;
  readonly agent: AgentProcess;
  /** A LangGraph SDK client of this replica (no retries). */
  readonly client: Client;
}

export interface SuiteReplicasOptions {
  /** The scripted model's script (YAML), the same on every replica. */
  readonly script: string;
  /** More config.yaml lines (top-level keys besides `agent:`). */
  readonly config?: readonly string[];
  /** `agent.runs`: how fast replicas find a stopped one. @default heartbeat 1 s, stale after 3 s */
  readonly runs?: { readonly heartbeatSeconds: number; readonly staleAfterSeconds: number };
  /** How many agent servers. @default 2 */
  readonly count?: number;
  /** `agent.streams.backend`: run events over Postgres, or over a real Redis started for the suite (guard it with needs("redis")). @default "postgres" */
  readonly streams?: "postgres" | "redis";
}

export interface SuiteReplicas {
  readonly replicas: readonly Replica[];
  /** The URL of the suite's own database (THINKTANK_TEST_POSTGRES_URL's server, a fresh database). */
  readonly databaseUrl: string;
}

/**
 * Registers beforeAll/afterAll that start `count` agent server processes on one fresh Postgres
 * database (agent.threads.backend: postgres): replicas as a load balancer would spread requests
 * over. Guard the suite with needs("postgres").
 */
export function useSuiteReplicas(options: SuiteReplicasOptions): SuiteReplicas {
  const runs = options.runs ?? { heartbeatSeconds: 1, staleAfterSeconds: 3 };
  const count = options.count ?? 2;
  let database: FreshDatabase | undefined;
  let redis: RedisServer | undefined;
  const started: Replica[] = [];
  const fixtures: ProjectFixture[] = [];

  beforeAll(async () => {
    database = await createFreshDatabase("tt_scale");
    const url = database.url;
    if (options.streams === "redis") redis = await startRedis();
    const config = [
      "agent:",
      "  threads:",
      "    backend: postgres",
      "    postgres_url_env: TEST_PG",
      "  runs:",
      `    heartbeat_seconds: ${runs.heartbeatSeconds}`,
      `    stale_after_seconds: ${runs.staleAfterSeconds}`,
      ...(redis ? ["  streams:", "    backend: redis", "    redis_url_env: TEST_REDIS"] : []),
      ...(options.config ?? []),
    ];
    for (let index = 0; index < count; index++) fixtures.push(await makeProjectFixture({ script: options.script, config }));
    const agents = await Promise.allSettled(fixtures.map((fixture) => startAgentProcess({ ...fixture.env, TEST_PG: url, ...(redis ? { TEST_REDIS: redis.url } : {}) })));
    agents.forEach((agent, index) => {
      if (agent.status === "fulfilled") {
        started.push({ fixture: fixtures[index] as ProjectFixture, agent: agent.value, client: new Client({ apiUrl: agent.value.url, callerOptions: { maxRetries: 0 } }) });
      }
    });
    const failed = agents.find((agent) => agent.status === "rejected");
    if (failed) throw failed.reason;
  }, 300_000);

  afterAll(async () => {
    await Promise.all(started.map((replica) => replica.agent.stop()));
    for (const fixture of fixtures) fixture.cleanup();
    await database?.drop();
    await redis?.stop();
  }, 60_000);

  return {
    get replicas() {
      if (started.length < count) throw new Error("the suite's replicas are not started (read them inside a test or hook)");
      return started;
    },
    get databaseUrl() {
      if (!database) throw new Error("the suite's database is not made yet");
      return database.url;
    },
  };
}
