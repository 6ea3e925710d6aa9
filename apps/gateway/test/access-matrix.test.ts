import { mutatingMethods } from "@thinktank/core";
import { jwtCredentials, startOpenIdProvider, type CredentialHolder, type OpenIdProvider, type TestCredential } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteAccess } from "../src/auth-hook.js";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

/**
 * Every operation of the OpenAPI document × every kind of credential: the status the auth hook
 * gives, asserted. The table below must name every operation, so a new route fails this test until
 * someone decides who may use it. A request that auth lets through may still fail in its handler
 * (a sample name that does not exist, an empty body): only the auth hook's own answers count as
 * refusals: 401 UNAUTHENTICATED, and 403 FORBIDDEN with details.access.
 */
const expectedAccess: Record<string, RouteAccess> = {
  "GET /healthz": "public",
  "GET /openapi.json": "public",
  "GET /api/mcp/servers": "public",
  "GET /api/mcp/servers/{name}": "public",
  "GET /api/mcp/servers/{name}/tools": "public",
  "PUT /api/mcp/servers/{name}": "user",
  "DELETE /api/mcp/servers/{name}": "user",
  "POST /api/mcp/servers/{name}/auth": "user",
  "GET /api/mcp/servers/{name}/auth": "user",
  "DELETE /api/mcp/servers/{name}/auth": "user",
  "GET /api/mcp/oauth/callback": "public",
  "GET /api/skills": "public",
  "GET /api/skills/search": "public",
  "GET /api/skills/{name}": "public",
  "GET /api/skills/{name}/content": "public",
  "PUT /api/skills/{name}": "user",
  "DELETE /api/skills/{name}": "user",
  "POST /api/skills/install": "user",
  "GET /api/agents": "public",
  "GET /api/agents/{identity}": "public",
  "PUT /api/agents/{identity}": "user",
  "DELETE /api/agents/{identity}": "user",
  "POST /api/agents/install": "user",
  "GET /api/plugins": "public",
  "GET /api/plugins/{name}": "public",
  "GET /api/plugins/{name}/commands": "public",
  "POST /api/plugins/install": "admin",
  "POST /api/plugins/{name}/update": "admin",
  "POST /api/plugins/{name}/rollback": "admin",
  "PUT /api/plugins/{name}": "admin",
  "DELETE /api/plugins/{name}": "admin",
  "GET /api/tools": "public",
  "GET /api/tools/{name}": "public",
  "POST /api/tools": "admin",
  "PUT /api/tools/{name}": "admin",
  "DELETE /api/tools/{name}": "admin",
  "GET /api/tools/{name}/executions": "admin",
  "POST /api/tools/{name}/call": "user",
  "GET /api/marketplaces": "public",
  "POST /api/marketplaces": "admin",
  "GET /api/marketplaces/{name}/plugins": "public",
  "GET /api/marketplaces/{name}/plugins/{plugin}": "public",
  "POST /api/marketplaces/{name}/update": "admin",
  "DELETE /api/marketplaces/{name}": "admin",
  "GET /api/me": "user",
  "POST /api/users": "admin",
  "GET /api/users": "admin",
  "GET /api/users/{id}": "admin",
  "DELETE /api/users/{id}": "admin",
  "POST /api/users/{id}/keys": "admin",
  "DELETE /api/users/{id}/keys/{key_id}": "admin",
  "GET /api/audit": "admin",
  "GET /api/memory": "user",
  "DELETE /api/memory": "user",
  "GET /api/memory/export": "user",
  "PUT /api/memory/settings": "user",
  "GET /api/memory/{*}": "user",
  "PUT /api/memory/{*}": "user",
  "DELETE /api/memory/{*}": "user",
  "GET /api/users/{id}/memory": "admin",
  "DELETE /api/users/{id}/memory": "admin",
  "GET /api/users/{id}/memory/{*}": "admin",
  "GET /api/session": "public",
  "POST /api/session": "public",
  "DELETE /api/session": "public",
  "GET /api/session/oidc/start": "public",
  "GET /api/session/oidc/callback": "public",
};

type Outcome = "through" | 401 | 403;


interface Operation {
  readonly method: string;
  readonly path: string;
  readonly access: string | undefined;
  readonly audit: string | undefined;
}

const adminKey = "matrix-admin-key-0123456789abcdef";
const audience = "https://thinktank-gateway.test";
const samples: Record<string, string> = { name: "matrix-sample", id: "usr_0000000000000000", key_id: "000000000000", identity: "custom:matrix-sample" };

function expected(holder: CredentialHolder, access: RouteAccess, keyless: boolean): Outcome {
  if (holder === "invalid") return 401;
  if (holder === "anonymous") return access === "public" || keyless ? "through" : 401;
  if (holder === "user" && access === "admin") return 403;
  return "through";
}

async function operations(gateway: TestGateway): Promise<Operation[]> {
  const document = (await gateway.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, Record<string, unknown>>> };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      access: operation["x-thinktank-access"] as string | undefined,
      audit: operation["x-thinktank-audit"] as string | undefined,
    })),
  );
}

/** Sends the smallest request the route takes and says whether auth let it through. */
async function attempt(gateway: TestGateway, operation: Operation, headers: Record<string, string>): Promise<{ outcome: Outcome | number; code?: string; challenged: boolean }> {
  const url = operation.path.replace(/\{([A-Za-z_]+|\*)\}/g, (_, param: string) => samples[param] ?? "x");
  const withBody = mutatingMethods.has(operation.method) && operation.method !== "DELETE";
  const response = await gateway.app.inject({
    method: operation.method as "GET",
    url: operation.path === "/api/skills/search" ? `${url}?q=matrix` : url,
    headers: { ...headers, ...(withBody ? { "content-type": "application/json" } : {}) },
    ...(withBody ? { payload: "{}" } : {}),
  });
  const body = String(response.headers["content-type"] ?? "").includes("json") ? (response.json() as { code?: string; details?: { access?: string } }) : {};
  const challenged = String(response.headers["www-authenticate"] ?? "").startsWith("Bearer");
  if (response.statusCode === 401) return { outcome: 401, code: body.code, challenged };
  if (response.statusCode === 403 && body.details?.access !== undefined) return { outcome: 403, code: body.code, challenged };
  return { outcome: "through", challenged };
}

describe("access matrix: every route of the OpenAPI document × every kind of credential", () => {
  let gateway: TestGateway;
  let provider: OpenIdProvider;
  const credentials: TestCredential[] = [];

  beforeAll(async () => {
    // JWTs from a real OpenID provider (oidc-provider), found through its discovery document.
    provider = await startOpenIdProvider();
    gateway = await createTestGateway({ apiKey: adminKey, configYaml: JSON.stringify({ auth: { jwt: { issuer: provider.issuer, audience } } }) });
    const make = async (name: string, role: "user" | "admin"): Promise<{ id: string; key: string; keyId: string }> => {
      const response = await gateway.app.inject({ method: "POST", url: "/api/users", headers: { "x-api-key": adminKey }, payload: { name, role } });
      expect(response.statusCode).toBe(201);
      const body = response.json() as { id: string; api_key: string; key_id: string };
      return { id: body.id, key: body.api_key, keyId: body.key_id };
    };
    const userA = await make("user-a", "user");
    const userB = await make("user-b", "user");
    const root = await make("root", "admin");
    const revoked = await make("revoked", "user");
    const deleted = await gateway.app.inject({ method: "DELETE", url: `/api/users/${revoked.id}/keys/${revoked.keyId}`, headers: { "x-api-key": adminKey } });
    expect(deleted.statusCode).toBe(204);
    credentials.push(
      { name: "no credentials", headers: {}, holder: "anonymous" },
      ...(await jwtCredentials(provider, { audience, subject: "user-a" })),
      { name: "user A's key", headers: { "x-api-key": userA.key }, holder: "user" },
      { name: "user B's key (Bearer)", headers: { authorization: `Bearer ${userB.key}` }, holder: "user" },
      { name: "the operator's key", headers: { "x-api-key": adminKey }, holder: "admin" },
      { name: "an admin user's key", headers: { "x-api-key": root.key }, holder: "admin" },
      { name: "a revoked key", headers: { "x-api-key": revoked.key }, holder: "invalid" },
      { name: "a wrong key", headers: { "x-api-key": `${adminKey}x` }, holder: "invalid" },
      { name: "a made-up user key", headers: { "x-api-key": `tt_u_${userA.keyId}_${"A".repeat(43)}` }, holder: "invalid" },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await provider?.stop();
  });

  it("names every operation in the table, and the document says the same access and an audit action for every change", async () => {
    const listed = await operations(gateway);
    expect(listed.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(Object.keys(expectedAccess).sort());
    for (const operation of listed) {
      const key = `${operation.method} ${operation.path}`;
      expect(operation.access, key).toBe(expectedAccess[key]);
      if (mutatingMethods.has(operation.method)) expect(operation.audit, key).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
    }
  });

  it("lets each credential through or refuses it exactly as the route's access says", async () => {
    const wrong: string[] = [];
    for (const operation of await operations(gateway)) {
      const access = expectedAccess[`${operation.method} ${operation.path}`] as RouteAccess;
      for (const credential of credentials) {
        const want = expected(credential.holder, access, false);
        const got = await attempt(gateway, operation, credential.headers);
        const wantCode = want === 401 ? "UNAUTHENTICATED" : want === 403 ? "FORBIDDEN" : undefined;
        if (got.outcome !== want || got.code !== wantCode || (want === 401 && !got.challenged)) {
          wrong.push(`${operation.method} ${operation.path} with ${credential.name}: expected ${want}, got ${got.outcome} ${got.code ?? ""}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // Every operation × every credential: a few hundred requests, slow on a loaded 2-core machine.
  }, 120_000);

  it("serves the docs UI to anyone; a URL no route matches is 404 to anyone, and wrong credentials are still 401 there", async () => {
    expect((await gateway.app.inject({ method: "GET", url: "/docs/" })).statusCode).toBe(200);
    expect((await gateway.app.inject({ method: "GET", url: "/api/nothing-here" })).statusCode).toBe(404);
    expect((await gateway.app.inject({ method: "DELETE", url: "/api/nothing-here" })).statusCode).toBe(404);
    expect((await gateway.app.inject({ method: "GET", url: "/api/nothing-here", headers: { "x-api-key": "wrong" } })).statusCode).toBe(401);
  });
});

describe("access matrix on a key-less gateway (loopback): no credentials are the local operator, wrong ones are still refused", () => {
  let gateway: TestGateway;
  let userKey: string;

  beforeAll(async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "POST", url: "/api/users", payload: { name: "local-user", role: "user" } });
    expect(response.statusCode).toBe(201);
    userKey = (response.json() as { api_key: string }).api_key;
  });
  afterAll(async () => gateway?.close());

  it("answers every route by the same table", async () => {
    const credentials: TestCredential[] = [
      { name: "no credentials", headers: {}, holder: "anonymous" },
      { name: "a user's key", headers: { "x-api-key": userKey }, holder: "user" },
      { name: "a made-up key", headers: { "x-api-key": "not-a-key" }, holder: "invalid" },
    ];
    const wrong: string[] = [];
    for (const operation of await operations(gateway)) {
      const access = expectedAccess[`${operation.method} ${operation.path}`] as RouteAccess;
      for (const credential of credentials) {
        const want = expected(credential.holder, access, true);
        const got = await attempt(gateway, operation, credential.headers);
        if (got.outcome !== want) wrong.push(`${operation.method} ${operation.path} with ${credential.name}: expected ${want}, got ${got.outcome} ${got.code ?? ""}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
