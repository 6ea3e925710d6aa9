import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe("OpenAPI", () => {
  it("documents every route the app has (except the docs UI's own), with schemas and security on mutating ones", async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; paths: Record<string, Record<string, { security?: unknown; responses?: Record<string, unknown>; requestBody?: unknown }>> };
    expect(document.openapi).toMatch(/^3\./);
    const listed = Object.entries(document.paths).flatMap(([url, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${url}`));
    const routes = gateway.app.routeTable.filter((route) => !route.hidden).map((route) => `${route.method} ${route.url.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/\*$/, "{*}")}`);
    expect(routes.length).toBeGreaterThan(4);
    expect(listed.sort()).toEqual([...new Set(routes)].sort());
    const put = document.paths["/api/mcp/servers/{name}"]?.put;
    expect(put?.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(put?.requestBody).toBeDefined();
    expect(Object.keys(put?.responses ?? {})).toEqual(expect.arrayContaining(["200", "201", "400", "401", "412"]));
    expect(document.paths["/healthz"]?.get?.security).toBeUndefined();
  });

  it("serves the docs UI at /docs", async () => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "GET", url: "/docs/" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toContain("text/html");
    // Its assets come through @fastify/static (content-disposition pinned to a Node 20 release by the root overrides).
    const asset = await gateway.app.inject({ method: "GET", url: "/docs/static/swagger-ui.css" });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["content-type"]).toContain("text/css");
  });
});
