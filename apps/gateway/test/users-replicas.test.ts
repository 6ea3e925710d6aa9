import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { makeTempDir, needs } from "@thinktank/testing";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../src/build-app.js";
import { createGatewayDeps } from "../src/gateway-deps.js";

/**
 * Two gateways over one folder and one threads database (each with its own users and keys in
 * memory): a user made on one works on the other, and a key revoked or a user deleted on one is
 * refused by the other within a second. On the embedded SQLite and on Postgres.
 */
const adminKey = "replicas-admin-key-0123456789";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoGateways(configYaml: string, env: Record<string, string> = {}): Promise<[FastifyInstance, FastifyInstance]> {
  const { dir, cleanup } = makeTempDir("tt-gateway-replicas-");
  cleanups.push(cleanup);
  fs.writeFileSync(path.join(dir, "extensions_config.json"), `${JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} })}\n`);
  fs.writeFileSync(path.join(dir, "config.yaml"), configYaml);
  const open = async (): Promise<FastifyInstance> => {
    const config = loadConfig({ cwd: dir, env: { THINKTANK_API_KEY: adminKey, ...env } });
    const app = buildApp(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
    await app.ready();
    cleanups.push(() => app.close());
    return app;
  };
  return [await open(), await open()];
}

/** How long until `check` holds, polling every 10 ms; fails past 1 s. */
async function within1s(check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  await expect.poll(check, { interval: 10, timeout: 1000 }).toBe(true);
  return Date.now() - started;
}

async function revokedAcross(one: FastifyInstance, two: FastifyInstance): Promise<void> {
  const status = async (app: FastifyInstance, key: string) => (await app.inject({ method: "GET", url: "/api/me", headers: { "x-api-key": key } })).statusCode;
  const created = await one.inject({ method: "POST", url: "/api/users", headers: { "x-api-key": adminKey }, payload: { name: "ada", role: "user" } });
  expect(created.statusCode).toBe(201);
  const { id, api_key: firstKey, key_id: firstKeyId } = created.json() as { id: string; api_key: string; key_id: string };
  await within1s(async () => (await status(two, firstKey)) === 200);
  // A second key made on the second gateway; the first revoked there: the first gateway refuses it within a second.
  const second = (await two.inject({ method: "POST", url: `/api/users/${id}/keys`, headers: { "x-api-key": adminKey } })).json() as { api_key: string };
  expect((await two.inject({ method: "DELETE", url: `/api/users/${id}/keys/${firstKeyId}`, headers: { "x-api-key": adminKey } })).statusCode).toBe(204);
  expect(await status(two, firstKey)).toBe(401);
  await within1s(async () => (await status(one, firstKey)) === 401);
  await within1s(async () => (await status(one, second.api_key)) === 200);
  // The user deleted on the first: the second gateway refuses their remaining key within a second.
  expect((await one.inject({ method: "DELETE", url: `/api/users/${id}`, headers: { "x-api-key": adminKey } })).statusCode).toBe(204);
  await within1s(async () => (await status(two, second.api_key)) === 401);
}

describe("users and keys across gateway replicas", () => {
  it("on the embedded SQLite database", async () => {
    const [one, two] = await twoGateways("log:\n  level: info\n");
    await revokedAcross(one, two);
  });

  it("on Postgres", needs("postgres"), async () => {
    const base = process.env.THINKTANK_TEST_POSTGRES_URL as string;
    const name = `tt_gateway_${crypto.randomUUID().replaceAll("-", "")}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    });
    const url = new URL(base);
    url.pathname = `/${name}`;
    const [one, two] = await twoGateways("agent:\n  threads:\n    backend: postgres\n    postgres_url_env: GATEWAY_TEST_DATABASE_URL\n", { GATEWAY_TEST_DATABASE_URL: url.toString() });
    await revokedAcross(one, two);
  });
});
