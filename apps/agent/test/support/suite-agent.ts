import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll } from "vitest";
import { makeAgentFixture, type AgentFixture, type AgentFixtureOptions } from "./agent-fixture.js";
import { startAgentProcess, type AgentProcess } from "./agent-process.js";
import { makeProjectFixture, startGatewayProcess, type GatewayProcess, type ProjectFixture, type ProjectFixtureOptions } from "./project-fixture.js";

/** A suite's agent server over its own folder, started before the suite's tests and stopped after them. */
export interface SuiteAgent<Fixture> {
  readonly fixture: Fixture;
  readonly agent: AgentProcess;
  /** A LangGraph SDK client of the agent server (no retries). */
  readonly client: Client;
  /** `thinktank gateway` over the same folder: only with `gateway: true`. */
  readonly gateway: GatewayProcess;
}

export interface SuiteProjectOptions extends ProjectFixtureOptions {
  /** Also run `thinktank gateway` over the project (started beside the agent server). */
  readonly gateway?: boolean;
}

/** Options, or a function that gives them when the suite starts (after the hooks registered before it). */
type Deferred<T> = T | (() => T);

interface Started<Fixture> {
  fixture?: Fixture;
  agent?: AgentProcess;
  gateway?: GatewayProcess;
  client?: Client;
}

/** How long starting a suite's processes may take (a loaded machine, sandboxes, MCP servers). */
const startTimeoutMs = 300_000;

/**
 * Registers beforeAll/afterAll that start an agent process over a fresh agent fixture and stop it;
 * read the fields inside tests and hooks.
 */
export function useSuiteAgent(options: Deferred<AgentFixtureOptions> = {}): SuiteAgent<AgentFixture> {
  return useSuiteAgents(options)[0];
}

/** Like useSuiteAgent for several agents at once (each over its own fixture), started side by side. */
export function useSuiteAgents<const Options extends Deferred<AgentFixtureOptions>[]>(...options: Options): { [Index in keyof Options]: SuiteAgent<AgentFixture> } {
  return useSuite(options.map((each) => async () => ({ fixture: await makeAgentFixture(resolve(each)), gateway: false }))) as { [Index in keyof Options]: SuiteAgent<AgentFixture> };
}

/** Like useSuiteAgent over a project folder (makeProjectFixture), with `gateway: true` a gateway process beside it. */
export function useSuiteProject(options: Deferred<SuiteProjectOptions>): SuiteAgent<ProjectFixture> {
  const make = async () => {
    const resolved = resolve(options);
    return { fixture: await makeProjectFixture(resolved), gateway: resolved.gateway ?? false };
  };
  return useSuite([make])[0] as SuiteAgent<ProjectFixture>;
}

function resolve<T>(options: Deferred<T>): T {
  return typeof options === "function" ? (options as () => T)() : options;
}

/** Each maker gives a suite's folder and whether a gateway runs over it. */
type SuiteMaker<Fixture> = () => Promise<{ fixture: Fixture; gateway: boolean }>;

function useSuite<Fixture extends AgentFixture | ProjectFixture>(makers: SuiteMaker<Fixture>[]): SuiteAgent<Fixture>[] {
  const suites = makers.map((): Started<Fixture> => ({}));
  beforeAll(async () => {
    await allSettled(
      makers.map(async (make, index) => {
        const started = suites[index] as Started<Fixture>;
        const { fixture, gateway } = await make();
        started.fixture = fixture;
        await allSettled([
          startAgentProcess(fixture.env).then((agent) => (started.agent = agent)),
          gateway ? startGatewayProcess(fixture as ProjectFixture).then((running) => (started.gateway = running)) : undefined,
        ]);
      }),
    );
  }, startTimeoutMs);
  afterAll(async () => {
    await Promise.all(
      suites.map(async (started) => {
        await Promise.all([started.agent?.stop(), started.gateway?.stop()]);
        started.fixture?.cleanup();
      }),
    );
  });
  return suites.map((started) => ({
    get fixture() {
      return ready(started.fixture, "fixture");
    },
    get agent() {
      return ready(started.agent, "agent");
    },
    get client() {
      started.client ??= new Client({ apiUrl: ready(started.agent, "agent").url, callerOptions: { maxRetries: 0 } });
      return started.client;
    },
    get gateway() {
      return ready(started.gateway, "gateway (useSuiteProject with gateway: true)");
    },
  }));
}

/** Waits for all (so that afterAll finds every process that started), then throws the first failure. */
async function allSettled(work: (Promise<unknown> | undefined)[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}

function ready<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the suite's ${what} is not started (read it inside a test or hook)`);
  return value;
}
