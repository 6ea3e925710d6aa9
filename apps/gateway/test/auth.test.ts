import { assertSafeBinding, isLoopbackAddress, mutatingMethods } from "@thinktank/core";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway, sampleUrl } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

const key = "correct-horse-battery-staple-1234";
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe("API key on mutating routes", () => {
  it("answers 401 on every mutating route without the key or with a wrong one (routes taken from the app itself)", async () => {
    gateway = await createTestGateway({ apiKey: key });
    // /agent/* is the agent server behind the gateway: it authenticates those itself (agent-proxy.test.ts, console-session.test.ts).
    const mutating = gateway.app.routeTable.filter((route) => mutatingMethods.has(route.method) && !route.url.startsWith("/agent"));
    expect(mutating.map((r) => `${r.method} ${r.url}`)).toEqual(expect.arrayContaining(["PUT /api/mcp/servers/:name", "DELETE /api/mcp/servers/:name"]));
    // The console's sign-in and sign-out take no key (signing in is how one gets a session): only a
    // wrong credential is refused there (console-session.test.ts covers the rest).
    const signIn = new Set(["POST /api/session", "DELETE /api/session"]);
    expect(mutating.map((r) => `${r.method} ${r.url}`)).toEqual(expect.arrayContaining([...signIn]));
    const before = await gateway.deps.store.read();
    for (const route of mutating) {
      const url = sampleUrl(route.url);
      const method = route.method as "POST" | "PUT" | "PATCH" | "DELETE";
      // No credential (none, an empty key, a scheme the gateway does not read) is refused everywhere but there.
      const missing = signIn.has(`${route.method} ${route.url}`) ? [] : [{}, { "x-api-key": "" }, { authorization: `Basic ${key}` }];
      for (const headers of [...missing, { "x-api-key": "wrong" }, { authorization: `Bearer ${key}x` }]) {
        const response = await gateway.app.inject({ method, url, headers: { ...headers, "content-type": "application/json" }, payload: { command: "node" } });
        expect(response.statusCode, `${method} ${url} with ${JSON.stringify(headers)}`).toBe(401);
        expect(response.json()).toMatchObject({ code: "UNAUTHENTICATED" });
        expect(response.headers["www-authenticate"]).toContain("Bearer");
      }
    }
    expect((await gateway.deps.store.read()).etag).toBe(before.etag);
    expect(gateway.logs()).not.toContain(key);
  });

  it("lets the key through as X-API-Key or as a Bearer token", async () => {
    gateway = await createTestGateway({ apiKey: key });
    const viaHeader = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", headers: { "x-api-key": key }, payload: { command: "node" } });
    expect(viaHeader.statusCode).toBe(201);
    const viaBearer = await gateway.app.inject({ method: "DELETE", url: "/api/mcp/servers/a", headers: { authorization: `bearer ${key}` } });
    expect(viaBearer.statusCode).toBe(204);
    expect(gateway.logs()).not.toContain(key);
  });

  it("leaves reads open with a key set, and everything open without one (loopback-only mode)", async () => {
    gateway = await createTestGateway({ apiKey: key });
    expect((await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).statusCode).toBe(200);
    await gateway.close();
    gateway = await createTestGateway();
    expect((await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", payload: { command: "node" } })).statusCode).toBe(201);
  });

  it("guards the tool execution log (arguments and outputs) with the key, even though it is a GET", async () => {
    gateway = await createTestGateway({ apiKey: key });
    const url = "/api/tools/hello_world/executions";
    const without = await gateway.app.inject({ method: "GET", url });
    expect(without.statusCode).toBe(401);
    expect(without.json()).toMatchObject({ code: "UNAUTHENTICATED" });
    expect((await gateway.app.inject({ method: "GET", url, headers: { "x-api-key": key } })).statusCode).not.toBe(401);
    expect((await gateway.app.inject({ method: "GET", url: "/api/tools" })).statusCode).not.toBe(401);
  });

  it("checks the key before reading the body (an unauthenticated upload is refused, not parsed)", async () => {
    gateway = await createTestGateway({ apiKey: key });
    const response = await gateway.app.inject({ method: "PUT", url: "/api/mcp/servers/a", headers: { "content-type": "application/json" }, payload: "{not json" });
    expect(response.statusCode).toBe(401);
  });
});

describe("listening address without a key", () => {
  it("accepts loopback addresses and refuses others unless a key is set", () => {
    for (const host of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"]) expect(isLoopbackAddress(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com"]) expect(isLoopbackAddress(host)).toBe(false);
    expect(() => assertSafeBinding("0.0.0.0", undefined)).toThrowError(/refusing to listen on 0\.0\.0\.0 without an API key.*THINKTANK_API_KEY/);
    expect(() => assertSafeBinding("0.0.0.0", key)).not.toThrow();
    expect(() => assertSafeBinding("127.0.0.1", undefined)).not.toThrow();
  });
});
