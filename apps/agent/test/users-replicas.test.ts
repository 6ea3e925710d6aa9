import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "./support/agent-process.js";
import { createFreshDatabase, type FreshDatabase } from "./support/fresh-postgres.js";
import { makeProjectFixture, startGatewayProcess, type GatewayProcess, type ProjectFixture } from "./support/project-fixture.js";

/**
 * Users across replicas (docs/architecture.md, "Users"): two gateways and two agent servers, each a
 * process of its own, on one Postgres database. A user made on one gateway is known to all four;
 * a key revoked on the other gateway is refused by the first gateway and by both agents within a
 * second, and so is the last key of a user deleted there.
 */
const adminKey = "users-replicas-admin-key-0123456789";
const script = "rules:\n  - when: { last_human: \".\" }\n    reply: hello\n";

describe("users, keys and revocations across replicas on Postgres", needs("postgres"), () => {
  let database: FreshDatabase;
  const fixtures: ProjectFixture[] = [];
  const gateways: GatewayProcess[] = [];
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    database = await createFreshDatabase("tt_users");
    const config = ["agent:", "  threads:", "    backend: postgres", "    postgres_url_env: TEST_PG"];
    for (let index = 0; index < 2; index++) {
      fixtures.push(await makeProjectFixture({ script, config, env: { TEST_PG: database.url, THINKTANK_API_KEY: adminKey } }));
    }
    const started = await Promise.allSettled([
      ...fixtures.map((fixture) => startGatewayProcess(fixture)),
      ...fixtures.map((fixture) => startAgentProcess(fixture.env)),
    ]);
    for (const [index, outcome] of started.entries()) {
      if (outcome.status !== "fulfilled") continue;
      if (index < 2) gateways.push(outcome.value as GatewayProcess);
      else agents.push(outcome.value as AgentProcess);
    }
    const failed = started.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }, 300_000);

  afterAll(async () => {
    await Promise.all([...gateways.map((gateway) => gateway.stop()), ...agents.map((agent) => agent.stop())]);
    for (const fixture of fixtures) fixture.cleanup();
    await database?.drop();
  }, 60_000);

  /** The status of "who am I" with this key on each of the four processes, gateways first. */
  const statuses = async (key: string): Promise<number[]> =>
    Promise.all([...gateways.map((gateway) => `${gateway.url}/api/me`), ...agents.map((agent) => `${agent.url}/me`)].map(async (url) => (await fetch(url, { headers: { "x-api-key": key } })).status));

  /** Polls every 10 ms until every process answers `status`; fails past one second after the change. */
  const everywhereWithin1s = (key: string, status: number) => expect.poll(() => statuses(key), { interval: 10, timeout: 1000 }).toEqual([status, status, status, status]);

  const admin = async (gateway: GatewayProcess, method: string, route: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${route}`, {
      method,
      headers: { "x-api-key": adminKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, string> };
  };

  it("a user made on one gateway works everywhere; a key revoked or a user deleted on the other stops everywhere within a second", async () => {
    const [one, two] = gateways as [GatewayProcess, GatewayProcess];
    const created = await admin(one, "POST", "/api/users", { name: "grace", role: "user" });
    expect(created.status).toBe(201);
    const { id, api_key: firstKey, key_id: firstKeyId } = created.body as { id: string; api_key: string; key_id: string };
    await everywhereWithin1s(firstKey, 200);
    const me = await fetch(`${agents[1]?.url}/me`, { headers: { "x-api-key": firstKey } });
    expect(await me.json()).toEqual({ id, name: "grace", role: "user", auth: "key" });

    const second = await admin(two, "POST", `/api/users/${id}/keys`);
    expect(second.status).toBe(201);
    expect((await admin(two, "DELETE", `/api/users/${id}/keys/${firstKeyId}`)).status).toBe(204);
    await everywhereWithin1s(firstKey, 401);
    await everywhereWithin1s(second.body.api_key as string, 200);

    expect((await admin(two, "DELETE", `/api/users/${id}`)).status).toBe(204);
    await everywhereWithin1s(second.body.api_key as string, 401);
  }, 60_000);
});
